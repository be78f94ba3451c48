/**
 * Retrieval evaluation (issue 16): 300 READMEs of permissively licensed npm packages, 180 questions in three
 * classes (bench/eval/build-corpus.ts), ingested through the real pipeline into PGlite + pgvector with the
 * offline embedder. Reports recall@1, recall@3 and MRR@3 per question class for text only, vector only,
 * hybrid and hybrid + the local reranker (ranking only: floors off, one chunk per document, top 10), an
 * in-memory BM25 baseline over the same chunks, and the production defaults (floors on, top 3).
 *
 *   npm run eval        writes bench/results/retrieval-eval.json
 *   EVAL_STORE=postgres npm run eval    the same on a scratch database of the local Postgres server with pgvector
 *                                       (bin/install-pgvector.sh): bench/results/retrieval-eval-postgres.json
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';

import { LocalReranker } from '../adapters/local-ai/local-lexical.reranker';
import { type Database, openDatabase } from '../adapters/postgres/database';
import type { IngestJobPayload } from '../core/knowledge/documents';
import { processIngestJob } from '../core/knowledge/ingest-document';
import { ingestText } from '../core/knowledge/ingest-text';
import { INGEST_QUEUE } from '../core/knowledge/knowledge-deps';
import { DEFAULT_RANKING } from '../core/knowledge/ranking';
import { DEFAULT_CANDIDATES_PER_KB, type RetrievalOptions, retrieve } from '../core/knowledge/retrieve';
import { createKnowledgeHarness, type KnowledgeHarness } from '../test/knowledge/knowledge-harness';
import { createScratchDatabase, type ScratchDatabase } from '../test/support/scratch-database';
import type { EvalDocument, EvalQuestion, QuestionClass } from './eval/build-corpus';
import { type ClassMetrics, documentsOf, InMemoryBm25, score } from './eval/metrics';
import { RANKING_ONLY } from './eval/ranking-only';

const CLASSES: QuestionClass[] = ['name', 'identifier', 'paraphrase'];

export type MethodReport = Record<QuestionClass | 'all', ClassMetrics>;

export interface EvalReport {
  date: string;
  corpus: { documents: number; chunks: number; questions: number; licence: string };
  embedder: { model: string; dimensions: number };
  ingestSeconds: number;
  methods: Record<string, MethodReport>;
  /**
   * The same methods on each half of the questions: the offline profile (ranking.ts) was calibrated on the even
   * ones (0, 2, 4...), so `odd` is the held-out figure.
   */
  heldOut: { note: string; tunedOn: Record<string, MethodReport>; heldOut: Record<string, MethodReport> };
  /** Hybrid retrieval per question: wall time, and CPU time p50 (PGlite runs in-process; stable under load). */
  searchMs: { p50: number; p95: number; cpuP50: number; loadAverage: number[] };
}

export interface EvalWorld {
  h: KnowledgeHarness;
  organizationId: string;
  knowledgeBaseId: string;
  questions: EvalQuestion[];
  /** Our document id (package name) by platform document id. */
  nameOf: Map<string, string>;
  chunks: { documentId: string; content: string }[];
  ingestSeconds: number;
  documents: number;
}

/** Scratch server databases of EVAL_STORE=postgres runs, dropped once their run is over. */
const dropAfterwards = new Map<Database, ScratchDatabase>();

export async function loadEvalWorld(options: { dimensions?: number; limitQuestions?: number } = {}): Promise<EvalWorld> {
  const corpus = JSON.parse(readFileSync(join(__dirname, 'eval/corpus.json'), 'utf8')) as {
    documents: EvalDocument[];
    questions: EvalQuestion[];
  };
  // EVAL_CACHE_DIR keeps the ingested database between runs while tuning ranking (ingestion takes minutes).
  const cache = process.env.EVAL_CACHE_DIR;
  const marker = cache ? join(cache, 'eval-world.json') : null;
  const server = process.env.EVAL_STORE === 'postgres' ? await createScratchDatabase('retrieval_eval') : null;
  const database = server ? await openDatabase({ url: server.url }) : cache ? await openDatabase({ dataDir: cache }) : undefined;
  if (server) dropAfterwards.set(database!, server);
  const h = await createKnowledgeHarness({ dimensions: options.dimensions ?? 1024, reranker: new LocalReranker(), database });
  const cached =
    marker && existsSync(marker) ? (JSON.parse(readFileSync(marker, 'utf8')) as { o: string; k: string; names: [string, string][] }) : null;
  const organizationId = cached?.o ?? (await h.newOrganization('eval')).organizationId;
  const kb = cached ? { id: cached.k } : await h.newKnowledgeBase(organizationId);
  const nameOf = new Map<string, string>(cached?.names ?? []);
  const started = Date.now();
  for (const d of cached ? [] : corpus.documents) {
    const r = await ingestText(h.deps, { organizationId, knowledgeBaseId: kb.id, title: d.title, text: d.text });
    nameOf.set(r.document.id, d.id);
    const outcome = await processIngestJob(h.deps, {
      id: r.jobId!,
      queue: INGEST_QUEUE,
      attempt: 1,
      payload: { organizationId, documentId: r.document.id } as IngestJobPayload,
    });
    if (outcome !== 'completed') throw new Error(`ingest ${d.id}: ${outcome}`);
  }
  const ingestSeconds = (Date.now() - started) / 1000;
  if (marker && !cached) writeFileSync(marker, JSON.stringify({ o: organizationId, k: kb.id, names: [...nameOf] }));
  const table = `kv_chunks_${options.dimensions ?? 1024}`;
  const rows = (await h.db.knex(table).select('document_id', 'content').orderBy(['document_id', 'chunk_index'])) as {
    document_id: string;
    content: string;
  }[];
  const chunks = rows.map((r) => ({ documentId: nameOf.get(r.document_id)!, content: r.content }));
  const questions = options.limitQuestions ? corpus.questions.slice(0, options.limitQuestions) : corpus.questions;
  return { h, organizationId, knowledgeBaseId: kb.id, questions, nameOf, chunks, ingestSeconds, documents: corpus.documents.length };
}

/** Metrics per class over the questions `keep` selects (by index; default all). */
function report(w: EvalWorld, ranked: string[][], keep: (i: number) => boolean = () => true): MethodReport {
  const out = {} as MethodReport;
  const of = (idx: number[]) =>
    score(
      idx.map((i) => ranked[i]),
      idx.map((i) => w.questions[i].documentId),
    );
  const all = w.questions.map((_, i) => i).filter(keep);
  for (const c of CLASSES) out[c] = of(all.filter((i) => w.questions[i].class === c));
  out.all = of(all);
  return out;
}

const even = (i: number) => i % 2 === 0;
const odd = (i: number) => i % 2 === 1;

export async function runMethod(w: EvalWorld, options: RetrievalOptions, timings?: Timings): Promise<MethodReport> {
  return report(w, await rankMethod(w, options, timings));
}

/** Ranked document names per question. */
interface Timings {
  wall: number[];
  cpu: number[];
}

export async function rankMethod(w: EvalWorld, options: RetrievalOptions, timings?: Timings): Promise<string[][]> {
  const ranked: string[][] = [];
  for (const q of w.questions) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const r = await retrieve(w.h.deps, {
      organizationId: w.organizationId,
      knowledgeBaseIds: [w.knowledgeBaseId],
      query: q.question,
      options,
    });
    const used = process.cpuUsage(c0);
    timings?.wall.push(performance.now() - t0);
    timings?.cpu.push((used.user + used.system) / 1000);
    ranked.push(documentsOf(r.chunks.map((c) => w.nameOf.get(c.documentId)!)));
  }
  return ranked;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] * 100) / 100;
};

export async function runRetrievalEval(options: { dimensions?: number } = {}): Promise<EvalReport> {
  const w = await loadEvalWorld(options);
  try {
    const bm25 = new InMemoryBm25(w.chunks);
    const timings: Timings = { wall: [], cpu: [] };
    const only = process.env.EVAL_METHODS?.split(',');
    const specProfile: RetrievalOptions = { weights: DEFAULT_RANKING.weights, candidatesPerKnowledgeBase: DEFAULT_CANDIDATES_PER_KB };
    const runs: [string, () => Promise<string[][]>][] = [
      ['bm25Baseline', async () => w.questions.map((q) => bm25.search(q.question))],
      ['textOnly', () => rankMethod(w, { ...RANKING_ONLY, mode: 'text' })],
      ['vectorOnly', () => rankMethod(w, { ...RANKING_ONLY, mode: 'vector' })],
      ['hybrid', () => rankMethod(w, RANKING_ONLY, timings)],
      ['hybridRerank', () => rankMethod(w, { ...RANKING_ONLY, rerank: true })],
      // the fusion before the offline profile: spec weights, no title match, 20 candidates per half
      ['hybridSpecWeights', () => rankMethod(w, { ...RANKING_ONLY, ...specProfile })],
      ['productionDefaults', () => rankMethod(w, { rerank: false })],
      ['productionVectorFloorOnTextMatches', () => rankMethod(w, { rerank: false, textMatchesSkipVectorFloor: false })],
      ['productionSpecWeights', () => rankMethod(w, { rerank: false, ...specProfile, minCombinedScore: DEFAULT_RANKING.minCombinedScore })],
    ];
    // EVAL_WEIGHTS="v,t,i[,title];..." adds hybrid runs with other combined-score weights (calibration).
    for (const spec of process.env.EVAL_WEIGHTS?.split(';') ?? []) {
      const [vector, text, importance, title] = spec.split(',').map(Number);
      runs.push([`hybrid ${spec}`, () => rankMethod(w, { ...RANKING_ONLY, weights: { vector, text, importance, title: title ?? 0 } })]);
    }
    const methods: Record<string, MethodReport> = {};
    const heldOut: EvalReport['heldOut'] = {
      note: 'offline ranking profile (core/knowledge/ranking.ts) calibrated on the even-numbered questions; heldOut = the odd ones',
      tunedOn: {},
      heldOut: {},
    };
    for (const [name, run] of runs) {
      if (only && !only.includes(name) && !name.includes(',')) continue;
      const ranked = await run();
      methods[name] = report(w, ranked);
      heldOut.tunedOn[name] = report(w, ranked, even);
      heldOut.heldOut[name] = report(w, ranked, odd);
    }
    return {
      date: new Date().toISOString(),
      corpus: {
        documents: w.documents,
        chunks: w.chunks.length,
        questions: w.questions.length,
        licence: 'READMEs of MIT/ISC/Apache-2.0/BSD/BlueOak packages, licence per document in bench/eval/corpus.json',
      },
      embedder: { model: w.h.deps.embedder.model, dimensions: options.dimensions ?? 1024 },
      ingestSeconds: w.ingestSeconds,
      methods,
      heldOut,
      searchMs: timings.wall.length
        ? { p50: pct(timings.wall, 50), p95: pct(timings.wall, 95), cpuP50: pct(timings.cpu, 50), loadAverage: loadavg() }
        : { p50: 0, p95: 0, cpuP50: 0, loadAverage: loadavg() },
    };
  } finally {
    await w.h.close();
    if (process.env.EVAL_CACHE_DIR || dropAfterwards.has(w.h.db)) await w.h.db.close();
    await dropAfterwards.get(w.h.db)?.drop();
  }
}

export function summary(r: EvalReport): string {
  const lines = [`${r.corpus.documents} documents, ${r.corpus.chunks} chunks, ${r.corpus.questions} questions`];
  for (const [name, m] of Object.entries(r.methods)) {
    const cls = CLASSES.map((c) => `${c} ${m[c].recallAt3}`).join(', ');
    const split = `even ${r.heldOut.tunedOn[name].all.recallAt3} / held-out odd ${r.heldOut.heldOut[name].all.recallAt3}`;
    lines.push(
      `${name.padEnd(20)} r@1 ${m.all.recallAt1}  r@3 ${m.all.recallAt3}  mrr@3 ${m.all.mrrAt3}  <3: ${m.all.underThree}  (r@3 ${cls}; ${split})`,
    );
  }
  lines.push(r.heldOut.note);
  return lines.join('\n');
}

if (require.main === module) {
  runRetrievalEval()
    .then((result) => {
      mkdirSync(join(__dirname, 'results'), { recursive: true });
      const file = process.env.EVAL_STORE === 'postgres' ? 'retrieval-eval-postgres.json' : 'retrieval-eval.json';
      writeFileSync(join(__dirname, 'results', file), `${JSON.stringify(result, null, 2)}\n`);
      console.log(summary(result));
    })
    .catch((e) => {
      console.error(e);
      process.exit(1);
    });
}
