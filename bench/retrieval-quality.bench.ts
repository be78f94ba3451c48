/**
 * Retrieval quality on the labelled corpus test/fixtures/retrieval/corpus.json (30 documents, 36 questions),
 * with the local embedder (1024 dimensions, the offline default) on PGlite + pgvector:
 *
 *   npx tsx bench/retrieval-quality.bench.ts      writes bench/results/retrieval-quality.json
 *
 * Rankings (thresholds off, one chunk per document, top 10): vector only, full text only, hybrid (RRF +
 * combined score), hybrid + the local lexical reranker. Metrics: recall@3 (answer document in the top 3)
 * and MRR. Then the production defaults offline (floors 0.35 / 0.25, top 3, at most 2 chunks per document,
 * no reranker since none is configured offline): recall@3, MRR, questions left without any result, and how
 * many off-topic questions still get a result; the same with the local reranker switched on for comparison.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { LocalReranker } from '../adapters/local-ai/local-lexical.reranker';
import type { Database } from '../adapters/postgres/database';
import type { IngestJobPayload } from '../core/knowledge/documents';
import { processIngestJob } from '../core/knowledge/ingest-document';
import { ingestText } from '../core/knowledge/ingest-text';
import { INGEST_QUEUE } from '../core/knowledge/knowledge-deps';
import { type RetrievalOptions, retrieve } from '../core/knowledge/retrieve';
import { createKnowledgeHarness } from '../test/knowledge/knowledge-harness';
import { RANKING_ONLY } from './eval/ranking-only';

interface Corpus {
  documents: { id: string; title: string; text: string }[];
  questions: { question: string; documentId: string }[];
}

export const OFF_TOPIC = [
  'What is the capital of Mongolia?',
  'Who won the 1998 football world cup?',
  'How do I change a flat bicycle tyre?',
  'What is the boiling point of mercury?',
  'Recommend a good recipe for lasagne',
  'How many moons does Neptune have?',
  'What year did the Berlin wall fall?',
  'How do I renew my passport?',
];

export interface Metrics {
  recallAt3: number;
  mrr: number;
}

export type Production = Metrics & { unanswered: number; offTopicAnswered: number; offTopicQuestions: number; meanResults: number };

export interface QualityResult {
  date: string;
  corpus: { documents: number; questions: number };
  embedder: { model: string; dimensions: number };
  rankings: Record<'vectorOnly' | 'textOnly' | 'hybrid' | 'hybridReranked', Metrics>;
  productionDefaults: Production;
  productionWithLocalReranker: Production;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** `database`: another store for the same run (the Postgres server in its suite); the default is an in-memory PGlite. */
export async function runRetrievalQuality(options: { dimensions?: number; database?: Database } = {}): Promise<QualityResult> {
  const corpus = JSON.parse(readFileSync(join(__dirname, '../test/fixtures/retrieval/corpus.json'), 'utf8')) as Corpus;
  const dimensions = options.dimensions ?? 1024;
  const h = await createKnowledgeHarness({ dimensions, reranker: new LocalReranker(), database: options.database });
  try {
    const { organizationId } = await h.newOrganization('quality');
    const kb = await h.newKnowledgeBase(organizationId);
    const titleOf = new Map<string, string>();
    for (const d of corpus.documents) {
      const r = await ingestText(h.deps, { organizationId, knowledgeBaseId: kb.id, title: d.title, text: `${d.title}\n\n${d.text}` });
      titleOf.set(r.document.id, d.id);
      const outcome = await processIngestJob(h.deps, {
        id: r.jobId!,
        queue: INGEST_QUEUE,
        attempt: 1,
        payload: { organizationId, documentId: r.document.id } as IngestJobPayload,
      });
      if (outcome !== 'completed') throw new Error(`ingest ${d.id}: ${outcome}`);
    }
    const ask = async (question: string, options: RetrievalOptions) =>
      (await retrieve(h.deps, { organizationId, knowledgeBaseIds: [kb.id], query: question, options })).chunks.map((c) =>
        titleOf.get(c.documentId)!,
      );
    const measure = async (options: RetrievalOptions) => {
      let hits = 0;
      let rr = 0;
      let empty = 0;
      let results = 0;
      for (const q of corpus.questions) {
        const ranked = await ask(q.question, options);
        const rank = ranked.indexOf(q.documentId);
        if (rank >= 0 && rank < 3) hits++;
        if (rank >= 0) rr += 1 / (rank + 1);
        if (ranked.length === 0) empty++;
        results += ranked.length;
      }
      const n = corpus.questions.length;
      return { recallAt3: round(hits / n), mrr: round(rr / n), empty, meanResults: round(results / n) };
    };
    const strip = ({ recallAt3, mrr }: Metrics) => ({ recallAt3, mrr });
    const vectorOnly = strip(await measure({ ...RANKING_ONLY, mode: 'vector' }));
    const textOnly = strip(await measure({ ...RANKING_ONLY, mode: 'text' }));
    const hybrid = strip(await measure(RANKING_ONLY));
    const hybridReranked = strip(await measure({ ...RANKING_ONLY, rerank: true }));
    const production = async (options: RetrievalOptions): Promise<Production> => {
      const m = await measure(options);
      let offTopicAnswered = 0;
      for (const q of OFF_TOPIC) if ((await ask(q, options)).length > 0) offTopicAnswered++;
      return {
        recallAt3: m.recallAt3,
        mrr: m.mrr,
        unanswered: m.empty,
        meanResults: m.meanResults,
        offTopicAnswered,
        offTopicQuestions: OFF_TOPIC.length,
      };
    };
    return {
      date: new Date().toISOString(),
      corpus: { documents: corpus.documents.length, questions: corpus.questions.length },
      embedder: { model: h.deps.embedder.model, dimensions },
      rankings: { vectorOnly, textOnly, hybrid, hybridReranked },
      productionDefaults: await production({ rerank: false }),
      productionWithLocalReranker: await production({ rerank: true }),
    };
  } finally {
    await h.close();
  }
}

if (require.main === module) {
  runRetrievalQuality()
    .then((result) => {
      mkdirSync(join(__dirname, 'results'), { recursive: true });
      writeFileSync(join(__dirname, 'results', 'retrieval-quality.json'), `${JSON.stringify(result, null, 2)}\n`);
      console.log(JSON.stringify(result, null, 2));
    })
    .catch((e) => {
      console.error(e);
      process.exit(1);
    });
}
