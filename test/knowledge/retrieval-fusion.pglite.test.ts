/**
 * Fusion under the offline embedder (core/knowledge/ranking.ts, offline profile) on documents of the retrieval
 * evaluation (bench/eval/corpus.json) where the hashed vectors mislead: identifiers the vector half ranks
 * elsewhere, and package names whose siblings (`pg-pool` for `pg`, `chalk` for `color`) repeat the name more.
 * Hybrid must still put the text hit first, and never do worse than full text alone.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { EvalDocument, EvalQuestion } from '../../bench/eval/build-corpus';
import { RANKING_ONLY } from '../../bench/eval/ranking-only';
import type { IngestJobPayload } from '../../core/knowledge/documents';
import { processIngestJob } from '../../core/knowledge/ingest-document';
import { ingestText } from '../../core/knowledge/ingest-text';
import { INGEST_QUEUE } from '../../core/knowledge/knowledge-deps';
import { DEFAULT_RANKING } from '../../core/knowledge/ranking';
import { type RetrievalOptions, retrieve } from '../../core/knowledge/retrieve';
import { createKnowledgeHarness, type KnowledgeHarness } from './knowledge-harness';

const DOCUMENTS = [
  ...['pg', 'pg-pool', 'pg-cloudflare', 'pg-types', 'pg-connection-string'],
  ...['color', 'chalk', 'supports-color', 'colorette', 'ansi-styles', 'color-convert', 'color-string'],
  ...['option', '@eslint/object-schema', 'eslint', 'finalhandler', '@electric-sql/pglite', 'minimatch', 'path-to-regexp'],
  ...['safe-stable-stringify', 'fast-safe-stringify', 'argparse', 'koa-convert'],
];
const QUESTIONS: EvalQuestion[] = [
  { question: 'What is pg for and how do I use it?', documentId: 'pg', class: 'name' },
  { question: 'What is color for and how do I use it?', documentId: 'color', class: 'name' },
  { question: 'What is isNone and when do I use it?', documentId: 'option', class: 'identifier' },
  { question: 'What is serveStatic and when do I use it?', documentId: 'finalhandler', class: 'identifier' },
  { question: 'What is FNM_PATH and when do I use it?', documentId: 'minimatch', class: 'identifier' },
  { question: 'What is circularValue and when do I use it?', documentId: 'safe-stable-stringify', class: 'identifier' },
];

let h: KnowledgeHarness;
let organizationId: string;
let kbId: string;
const nameOf = new Map<string, string>();

beforeAll(async () => {
  const corpus = JSON.parse(readFileSync(join(__dirname, '../../bench/eval/corpus.json'), 'utf8')) as { documents: EvalDocument[] };
  h = await createKnowledgeHarness({ dimensions: 1024 });
  ({ organizationId } = await h.newOrganization('fusion'));
  kbId = (await h.newKnowledgeBase(organizationId)).id;
  for (const id of DOCUMENTS) {
    const d = corpus.documents.find((x) => x.id === id)!;
    const r = await ingestText(h.deps, { organizationId, knowledgeBaseId: kbId, title: d.title, text: d.text });
    nameOf.set(r.document.id, d.id);
    const payload = { organizationId, documentId: r.document.id } as IngestJobPayload;
    expect(await processIngestJob(h.deps, { id: r.jobId!, queue: INGEST_QUEUE, attempt: 1, payload })).toBe('completed');
  }
}, 120_000);

afterAll(() => h?.close());

async function ranked(question: string, options: RetrievalOptions): Promise<string[]> {
  const r = await retrieve(h.deps, { organizationId, knowledgeBaseIds: [kbId], query: question, options });
  return [...new Set(r.chunks.map((c) => nameOf.get(c.documentId)!))];
}

it('puts the text hit first on identifiers the offline vectors rank elsewhere', async () => {
  for (const q of QUESTIONS.filter((x) => x.class === 'identifier')) {
    const vector = await ranked(q.question, { ...RANKING_ONLY, mode: 'vector' });
    expect({ q: q.question, vectorFirst: vector[0] === q.documentId }).toEqual({ q: q.question, vectorFirst: false });
    expect({ q: q.question, hybrid: (await ranked(q.question, RANKING_ONLY))[0] }).toEqual({ q: q.question, hybrid: q.documentId });
  }
}, 60_000);

it('ranks a named package above siblings that repeat its name, which the spec weights did not', async () => {
  const spec: RetrievalOptions = { ...RANKING_ONLY, weights: DEFAULT_RANKING.weights, candidatesPerKnowledgeBase: 20 };
  expect((await ranked('What is pg for and how do I use it?', spec))[0]).not.toBe('pg');
  expect((await ranked('What is pg for and how do I use it?', RANKING_ONLY))[0]).toBe('pg');
}, 60_000);

it('never ranks the answer lower than full text alone does', async () => {
  for (const q of QUESTIONS) {
    const text = (await ranked(q.question, { ...RANKING_ONLY, mode: 'text' })).indexOf(q.documentId);
    const hybrid = (await ranked(q.question, RANKING_ONLY)).indexOf(q.documentId);
    expect({ q: q.question, hybrid: hybrid >= 0 && (text < 0 || hybrid <= text) }).toEqual({ q: q.question, hybrid: true });
  }
}, 60_000);

it('keeps the production floors: an off-topic question gets nothing', async () => {
  expect(await ranked('What is the capital of Mongolia?', { rerank: false })).toEqual([]);
}, 30_000);
