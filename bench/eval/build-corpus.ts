/**
 * Builds the retrieval evaluation corpus (bench/eval/corpus.json) from the READMEs of the permissively
 * licensed npm packages installed in node_modules (MIT, ISC, Apache-2.0, BSD, 0BSD, BlueOak): offline,
 * deterministic, each document carries its package's licence. Run once and commit the output:
 *
 *   npx tsx bench/eval/build-corpus.ts
 *
 * Questions, three classes (deterministic, no model):
 * - `name`: names the package ("What is <name> for and how do I use it?").
 * - `identifier`: names an option or identifier found in exactly one document (`--flag`, CONSTANT_NAME,
 *   camelCase.member) and nothing else.
 * - `paraphrase`: the package's one-line description with its name removed, asked as a need; the sentence
 *   itself is removed from the document so only other wording can match it.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '../../node_modules');
const LICENCES = /^(MIT|ISC|Apache-2\.0|BSD-2-Clause|BSD-3-Clause|0BSD|BlueOak-1\.0\.0)$/;
const DOCUMENTS = 300;
const MAX_CHARS = 9000;
const PER_CLASS = 60;

export interface EvalDocument {
  id: string;
  title: string;
  licence: string;
  text: string;
}
export type QuestionClass = 'name' | 'identifier' | 'paraphrase';
export interface EvalQuestion {
  question: string;
  documentId: string;
  class: QuestionClass;
}

function packages(): string[] {
  const out: string[] = [];
  for (const e of readdirSync(ROOT).sort()) {
    if (e.startsWith('.')) continue;
    if (e.startsWith('@')) for (const s of readdirSync(join(ROOT, e)).sort()) out.push(`${e}/${s}`);
    else out.push(e);
  }
  return out;
}

/** Markdown to plain-ish text: no HTML, badges, images, link targets or tables of badges. */
function clean(md: string): string {
  return md
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
    .replace(/\[!\[[^\]]*\]\([^)]*\)\]\([^)]*\)/g, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^\[[^\]]+\]:\s*\S+.*$/gm, '')
    .replace(/https?:\/\/\S+/g, ' ')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619) >>> 0;
  return h;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function build() {
  const candidates: (EvalDocument & { description: string })[] = [];
  for (const name of packages()) {
    const dir = join(ROOT, name);
    const readme = ['README.md', 'readme.md', 'Readme.md'].map((f) => join(dir, f)).find((f) => existsSync(f));
    if (!readme || !existsSync(join(dir, 'package.json'))) continue;
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { license?: unknown; description?: unknown };
    if (typeof pkg.license !== 'string' || !LICENCES.test(pkg.license)) continue;
    const description = typeof pkg.description === 'string' ? pkg.description.trim() : '';
    const text = clean(readFileSync(readme, 'utf8'));
    if (text.length < 1500 || description.split(/\s+/).length < 4) continue;
    candidates.push({ id: name, title: name, licence: pkg.license, text: text.slice(0, MAX_CHARS), description });
  }
  // A stable spread of packages rather than the alphabet's first 300.
  candidates.sort((a, b) => hash(a.id) - hash(b.id));
  const docs = candidates.slice(0, DOCUMENTS).sort((a, b) => a.id.localeCompare(b.id));

  const questions: EvalQuestion[] = [];
  const picked = [...docs].sort((a, b) => hash(`q${a.id}`) - hash(`q${b.id}`));
  // paraphrase: description without the package name; the description sentence leaves the document.
  const bareName = (id: string) => id.replace(/^@[^/]+\//, '');
  for (const d of picked) {
    if (questions.filter((q) => q.class === 'paraphrase').length >= PER_CLASS) break;
    const words = new RegExp(`\\b${escapeRe(bareName(d.id))}\\b`, 'gi');
    const need = d.description
      .replace(words, '')
      .replace(/\s+/g, ' ')
      .replace(/[.\s]+$/, '')
      .trim();
    if (need.split(' ').length < 4) continue;
    d.text = d.text.split(d.description).join(' ').replace(d.description.replace(/\.$/, ''), ' ');
    questions.push({
      question: `Which library should I use for this: ${need.charAt(0).toLowerCase()}${need.slice(1)}?`,
      documentId: d.id,
      class: 'paraphrase',
    });
  }
  // identifier: a token found in exactly one document.
  const IDENT =
    /(?<![\w-])(--[a-z][a-z0-9-]{3,}|[A-Z][A-Z0-9]*_[A-Z0-9_]{2,}|[a-z][a-z0-9]*[A-Z][A-Za-z0-9]{2,}(?:\.[a-z][A-Za-z0-9]+)?)(?![\w-])/g;
  const occurrences = new Map<string, Set<string>>();
  for (const d of docs)
    for (const m of d.text.matchAll(IDENT)) {
      const set = occurrences.get(m[1]) ?? new Set<string>();
      set.add(d.id);
      occurrences.set(m[1], set);
    }
  const usedDocs = new Set<string>();
  for (const d of [...docs].sort((a, b) => hash(`i${a.id}`) - hash(`i${b.id}`))) {
    if (questions.filter((q) => q.class === 'identifier').length >= PER_CLASS) break;
    const own = [...new Set([...d.text.matchAll(IDENT)].map((m) => m[1]))]
      .filter((t) => occurrences.get(t)!.size === 1 && !t.toLowerCase().includes(bareName(d.id).toLowerCase()))
      .sort((a, b) => hash(a) - hash(b));
    if (!own.length || usedDocs.has(d.id)) continue;
    usedDocs.add(d.id);
    const t = own[0];
    const ask = t.startsWith('--') ? `What does the ${t} option do?` : `What is ${t} and when do I use it?`;
    questions.push({ question: ask, documentId: d.id, class: 'identifier' });
  }
  // name: the package named.
  for (const d of [...docs].sort((a, b) => hash(`n${a.id}`) - hash(`n${b.id}`)).slice(0, PER_CLASS)) {
    questions.push({ question: `What is ${bareName(d.id)} for and how do I use it?`, documentId: d.id, class: 'name' });
  }
  const documents: EvalDocument[] = docs.map(({ id, title, licence, text }) => ({ id, title, licence, text }));
  return { source: 'READMEs of permissively licensed npm packages (licence per document)', documents, questions };
}

if (require.main === module) {
  const corpus = build();
  writeFileSync(join(__dirname, 'corpus.json'), `${JSON.stringify(corpus)}\n`);
  const byClass = corpus.questions.reduce<Record<string, number>>((m, q) => ({ ...m, [q.class]: (m[q.class] ?? 0) + 1 }), {});
  console.log(corpus.documents.length, 'documents', corpus.questions.length, 'questions', byClass);
}
