/**
 * Knowledge graph benchmarks (issue 10), on PGlite in memory with the local embedder:
 * - quality: precision and recall of the offline extractor on the hand-labelled corpus (test/graph/corpus.ts),
 *   and multi-hop questions: does graph discovery reach the answer's document when vector + text search miss it;
 * - extraction throughput: chunks/s through the ingestion pipeline with the graph step, next to the same
 *   pipeline without it (same documents, same run);
 * - latency at 10k entities / 50k relationships: graph entity search and the 2-hop neighbourhood of the
 *   default adapter, next to raw SQL baselines (key lookup; a 2-hop self-join on relationships).
 *
 *   npx tsx bench/graph.bench.ts        writes bench/results/graph.json
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';

import { PostgresGraphStore } from '../adapters/postgres-graph/postgres.graph-store';
import { graphExtractionStep } from '../core/graph/extraction-step';
import { graphSearchOver } from '../core/graph/graph-query';
import { keysOf } from '../core/graph/names';
import { offlineGraphExtractor } from '../core/graph/offline-extractor';
import { uploadDocument } from '../core/knowledge/documents';
import { processIngestJob } from '../core/knowledge/ingest-document';
import { defaultIngestionSteps, type IngestionStep } from '../core/knowledge/ingestion-steps';
import { retrieve } from '../core/knowledge/retrieve';
import type { DocumentGraph } from '../core/ports/graph-store';
import { CORPUS, MULTI_HOP } from '../test/graph/corpus';
import { extractionQuality } from '../test/graph/extraction-quality';
import { createKnowledgeHarness, type KnowledgeHarness } from '../test/knowledge/knowledge-harness';

const ENTITIES = Number(process.env.GRAPH_ENTITIES ?? 10_000);
const RELATIONSHIPS = Number(process.env.GRAPH_RELATIONSHIPS ?? 50_000);
const QUERIES = 60;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] * 100) / 100;
};
async function timeEach(n: number, f: (i: number) => Promise<unknown>) {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await f(i);
    out.push(performance.now() - t);
  }
  return { p50Ms: pct(out, 50), p95Ms: pct(out, 95) };
}
function rng(seed: number) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

async function ingestAll(
  h: KnowledgeHarness,
  owner: Parameters<typeof uploadDocument>[1],
  kbId: string,
  texts: string[],
  steps: readonly IngestionStep[],
) {
  let chunks = 0;
  const ids: string[] = [];
  const t = performance.now();
  for (const [i, text] of texts.entries()) {
    const r = await uploadDocument(h.deps, owner, kbId, { filename: `doc-${i}.txt`, bytes: Buffer.from(text) });
    const job = {
      id: r.jobId,
      queue: 'knowledge.ingest',
      payload: { organizationId: owner.organizationId!, documentId: r.document.id },
      attempt: 1,
    };
    if ((await processIngestJob(h.deps, job, steps)) !== 'completed') throw new Error(`document ${i} did not complete`);
    chunks += (await h.deps.store.repos.documents.findById(owner.organizationId!, r.document.id))!.chunkCount;
    ids.push(r.document.id);
  }
  return { chunks, ids, seconds: (performance.now() - t) / 1000 };
}

async function main() {
  const started = performance.now();
  const h = await createKnowledgeHarness();
  const graph = new PostgresGraphStore(h.db.knex);
  const step = graphExtractionStep({ graph, extractor: offlineGraphExtractor, billing: h.deps.billing, costUsd: () => 0 });
  const withGraph = [...defaultIngestionSteps.slice(0, 4), step, ...defaultIngestionSteps.slice(4)];
  const { organizationId, owner } = await h.newOrganization('graph-bench');

  // quality
  const quality = extractionQuality();
  const kb = await h.newKnowledgeBase(organizationId, { name: 'victorians' });
  const corpusDocs = await ingestAll(
    h,
    owner,
    kb.id,
    CORPUS.map((p) => p.text),
    withGraph,
  );
  const search = graphSearchOver(graph);
  const multiHop = [];
  for (const q of MULTI_HOP) {
    const direct = await retrieve(h.deps, { organizationId, knowledgeBaseIds: [kb.id], query: q.question });
    const viaGraph = await search.discoverChunks({ organizationId, knowledgeBaseIds: [kb.id], text: q.question, limit: 10 });
    const answerDocs = new Set(corpusDocs.ids.filter((_, i) => CORPUS[i].text.includes(q.reaches)));
    multiHop.push({
      question: q.question,
      answerMentions: q.reaches,
      vectorAndTextFound: direct.chunks.some((c) => answerDocs.has(c.documentId)),
      graphFound: viaGraph.some((c) => answerDocs.has(c.documentId)),
      graphPath: viaGraph.find((c) => answerDocs.has(c.documentId))?.relationshipPath ?? null,
    });
  }
  console.log({ quality, multiHop });

  // throughput: the same prose documents (~3 chunks each) without and with the graph step
  const prose = Array.from({ length: 30 }, (_, i) =>
    Array.from({ length: 24 }, (_, j) => CORPUS[(i + j * 7) % CORPUS.length].text).join(' '),
  );
  const kbPlain = await h.newKnowledgeBase(organizationId, { name: 'plain' });
  const kbGraph = await h.newKnowledgeBase(organizationId, { name: 'graph' });
  await ingestAll(h, owner, kbPlain.id, prose.slice(0, 3), defaultIngestionSteps); // warm-up
  const plain = await ingestAll(h, owner, kbPlain.id, prose, defaultIngestionSteps);
  const graphRun = await ingestAll(h, owner, kbGraph.id, prose, withGraph);
  const throughput = {
    documents: prose.length,
    chunks: plain.chunks,
    withoutGraphChunksPerSecond: Math.round(plain.chunks / plain.seconds),
    withGraphChunksPerSecond: Math.round(graphRun.chunks / graphRun.seconds),
    slowdown: Math.round((graphRun.seconds / plain.seconds) * 100) / 100,
  };
  console.log({ throughput });

  // latency at ENTITIES / RELATIONSHIPS
  const big = { organizationId, knowledgeBaseId: (await h.newKnowledgeBase(organizationId, { name: 'big' })).id };
  const random = rng(11);
  const name = (i: number) => `Entity ${i} Node`;
  const perDoc = 100;
  const tLoad = performance.now();
  for (let d = 0; d * perDoc < ENTITIES; d++) {
    const ids = Array.from({ length: perDoc }, (_, k) => d * perDoc + k).filter((i) => i < ENTITIES);
    const rels = Array.from({ length: Math.round((RELATIONSHIPS * ids.length) / ENTITIES) }, () => {
      const s = ids[Math.floor(random() * ids.length)];
      const t = Math.floor(random() * ENTITIES);
      return { s, t };
    });
    // targets outside this document are mentioned here too, so the keys resolve to the shared entities
    const mentioned = [...new Set([...ids, ...rels.map((r) => r.t)])];
    const doc: DocumentGraph = {
      entities: mentioned.map((i) => ({
        keys: keysOf(name(i), []),
        name: name(i),
        type: i % 3 ? 'concept' : 'person',
        aliases: [],
        confidence: 0.7,
        mentions: [{ chunkIndex: 0, count: 1 }],
      })),
      relationships: rels
        .filter((r) => r.s !== r.t)
        .map((r) => ({
          sourceKey: keysOf(name(r.s), [])[0],
          targetKey: keysOf(name(r.t), [])[0],
          type: 'related_to',
          weight: 0.5,
          chunkIndex: 0,
        })),
    };
    await graph.replaceDocument({ ...big, documentId: randomUUID() }, doc, new Date().toISOString());
  }
  const stats = await graph.stats(big);
  const loadSeconds = Math.round((performance.now() - tLoad) / 100) / 10;
  const pick = () => Math.floor(random() * ENTITIES);
  const entitySearch = await timeEach(QUERIES, () =>
    search.searchEntities({
      organizationId,
      knowledgeBaseIds: [big.knowledgeBaseId],
      text: `How is ${name(pick())} linked to ${name(pick())}?`,
      limit: 5,
    }),
  );
  const seedIds = (await graph.listEntities(big, { limit: QUERIES, offset: 0 })).items.map((e) => e.id);
  const twoHop = await timeEach(QUERIES, (i) => graph.neighbourhood(big, [seedIds[i % seedIds.length]], 2, 100));
  const rawLookup = await timeEach(QUERIES, () =>
    h.db.knex.raw('SELECT entity_id FROM graph_entity_keys WHERE knowledge_base_id = ? AND key = ANY(?::text[])', [
      big.knowledgeBaseId,
      keysOf(name(pick()), []),
    ]),
  );
  const rawTwoHop = await timeEach(QUERIES, (i) =>
    h.db.knex.raw(
      `SELECT DISTINCT r2.target_entity_id FROM graph_relationships r1 JOIN graph_relationships r2 ON r2.source_entity_id = r1.target_entity_id
       WHERE r1.source_entity_id = ? LIMIT 100`,
      [seedIds[i % seedIds.length]],
    ),
  );
  const latency = {
    entities: stats.totalEntities,
    relationships: stats.totalRelationships,
    loadSeconds,
    entitySearch,
    twoHop,
    rawLookup,
    rawTwoHop,
  };
  console.log({ latency });
  await h.close();
  return {
    date: new Date().toISOString(),
    totalSeconds: Math.round((performance.now() - started) / 1000),
    machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version, loadAverage: os.loadavg() },
    setup: { store: 'PGlite (in-memory), graph tables of migration 0030', extractor: 'offline', embedder: h.deps.embedder.model },
    quality: {
      precision: Math.round(quality.precision * 1000) / 1000,
      recall: Math.round(quality.recall * 1000) / 1000,
      misses: quality.misses,
      extras: quality.extras,
    },
    multiHop,
    throughput,
    latency,
  };
}

main()
  .then((result) => {
    mkdirSync(join(__dirname, 'results'), { recursive: true });
    writeFileSync(join(__dirname, 'results', 'graph.json'), `${JSON.stringify(result, null, 2)}\n`);
    console.log(JSON.stringify(result, null, 2));
  })
  .catch((e) => {
    console.error(e);
    process.exit(1);
  });
