/**
 * Knowledge graph benchmarks (issue 10), on PGlite in memory with the local embedder:
 * - quality: precision and recall of the offline extractor on the hand-labelled corpus (test/graph/corpus.ts),
 *   and multi-hop questions: does graph discovery reach the answer's document when vector + text search miss it;
 * - extraction throughput: chunks/s through the ingestion pipeline with the graph step, next to the same
 *   pipeline without it (same documents, same run);
 * - latency at 10k entities / 50k relationships: graph entity search and the 2-hop neighbourhood of the
 *   default adapter, next to hand-written SQL of the same result shape (entity rows with mention count and
 *   document ids; relationships among the reached entities), which is what the adapter's queries cost in
 *   the database with none of its structure;
 * - a light request (GET /api/auth/me p99) on the running platform while a large document's graph is
 *   extracted, next to the same request on the idle platform (bench/support/graph-light-request.ts).
 *
 *   npx tsx bench/graph.bench.ts        writes bench/results/graph.json
 *   GRAPH_DOC_KB=512 BENCH_SECONDS=3    size of the large document, length of each autocannon window
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';

import type { Knex } from 'knex';

import { PostgresGraphStore } from '../adapters/postgres-graph/postgres.graph-store';
import { graphExtractionStep } from '../core/graph/extraction-step';
import { graphSearchOver, queryKeys } from '../core/graph/graph-query';
import { offlineGraphExtractor } from '../core/graph/offline-extractor';
import { uploadDocument } from '../core/knowledge/documents';
import { processIngestJob } from '../core/knowledge/ingest-document';
import { defaultIngestionSteps, type IngestionStep } from '../core/knowledge/ingestion-steps';
import { retrieve } from '../core/knowledge/retrieve';
import { CORPUS, MULTI_HOP } from '../test/graph/corpus';
import { extractionQuality } from '../test/graph/extraction-quality';
import { createKnowledgeHarness, type KnowledgeHarness } from '../test/knowledge/knowledge-harness';
import { loadSyntheticGraph, rng, syntheticName as name } from './support/graph-fixture';
import { lightRequestDuringGraphExtraction } from './support/graph-light-request';

const ENTITIES = Number(process.env.GRAPH_ENTITIES ?? 10_000);
const RELATIONSHIPS = Number(process.env.GRAPH_RELATIONSHIPS ?? 50_000);
const QUERIES = 60;
const DOC_KB = Number(process.env.GRAPH_DOC_KB ?? 512);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] * 100) / 100;
};
/** Each function `n` times, round-robin; p50 and p95 of each. */
async function interleaved<K extends string>(n: number, fs: Record<K, (i: number) => Promise<unknown>>) {
  const out = Object.fromEntries(Object.keys(fs).map((k) => [k, [] as number[]])) as Record<K, number[]>;
  for (let i = 0; i < n; i++)
    for (const k of Object.keys(fs) as K[]) {
      const t = performance.now();
      await fs[k](i);
      out[k].push(performance.now() - t);
    }
  return Object.fromEntries(Object.entries<number[]>(out).map(([k, xs]) => [k, { p50Ms: pct(xs, 50), p95Ms: pct(xs, 95) }])) as Record<
    K,
    { p50Ms: number; p95Ms: number }
  >;
}

/** Entity rows with their mention count and document ids, the shape every adapter read returns. */
const RAW_ENTITY_COLUMNS = `e.*, (SELECT SUM(count) FROM graph_mentions m WHERE m.entity_id = e.id) AS mention_count,
  ARRAY(SELECT DISTINCT document_id FROM graph_mentions m WHERE m.entity_id = e.id) AS document_ids`;

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
  const tLoad = performance.now();
  await loadSyntheticGraph(graph, big, ENTITIES, RELATIONSHIPS, random);
  const stats = await graph.stats(big);
  const loadSeconds = Math.round((performance.now() - tLoad) / 100) / 10;
  const seedIds = (await graph.listEntities(big, { limit: QUERIES, offset: 0 })).items.map((e) => e.id);
  const texts = Array.from({ length: QUERIES }, () => {
    const pick = () => Math.floor(random() * ENTITIES);
    return `How is ${name(pick())} linked to ${name(pick())}?`;
  });
  const raw = (sql: string, bindings: unknown[]) => h.db.knex.raw(sql, bindings as Knex.RawBinding[]);
  // Baselines: plain SQL as one would write it by hand, with the same inputs and the same result shape.
  const rawEntitySearch = async (i: number) => {
    const matched = await raw(
      `SELECT ${RAW_ENTITY_COLUMNS} FROM graph_entity_keys k JOIN graph_entities e ON e.id = k.entity_id
       WHERE k.knowledge_base_id = ? AND k.key = ANY(?::text[]) AND e.organization_id = ? AND NOT e.hidden`,
      [big.knowledgeBaseId, queryKeys(texts[i]), organizationId],
    );
    const ids = (matched.rows as { id: string }[]).map((r) => r.id);
    const rels = await raw(
      `SELECT * FROM graph_relationships WHERE source_entity_id = ANY(?::uuid[]) OR target_entity_id = ANY(?::uuid[])
       ORDER BY weight DESC, id LIMIT 400`,
      [ids, ids],
    );
    const others = (rels.rows as { source_entity_id: string; target_entity_id: string }[]).flatMap((r) => [
      r.source_entity_id,
      r.target_entity_id,
    ]);
    return raw(`SELECT ${RAW_ENTITY_COLUMNS} FROM graph_entities e WHERE e.id = ANY(?::uuid[])`, [[...new Set(others)]]);
  };
  const rawTwoHop = async (i: number) => {
    const seed = seedIds[i % seedIds.length];
    const near = await raw(
      `WITH one AS (SELECT target_entity_id AS id FROM graph_relationships WHERE source_entity_id = ?
                    UNION SELECT source_entity_id FROM graph_relationships WHERE target_entity_id = ?),
            two AS (SELECT r.target_entity_id AS id FROM one JOIN graph_relationships r ON r.source_entity_id = one.id
                    UNION SELECT r.source_entity_id FROM one JOIN graph_relationships r ON r.target_entity_id = one.id),
            ids AS (SELECT ?::uuid AS id, 0 AS d UNION SELECT id, 1 FROM one UNION SELECT id, 2 FROM two),
            near AS (SELECT id, min(d) AS d FROM ids GROUP BY id ORDER BY d, id LIMIT 100)
       SELECT ${RAW_ENTITY_COLUMNS} FROM near JOIN graph_entities e ON e.id = near.id
       WHERE e.organization_id = ? AND e.knowledge_base_id = ?`,
      [seed, seed, seed, organizationId, big.knowledgeBaseId],
    );
    const ids = (near.rows as { id: string }[]).map((r) => r.id);
    return raw(
      `SELECT * FROM graph_relationships WHERE source_entity_id = ANY(?::uuid[]) AND target_entity_id = ANY(?::uuid[])
       ORDER BY weight DESC, id LIMIT 400`,
      [ids, ids],
    );
  };
  // interleaved, so a change of machine load in the middle colours every series alike
  const series = await interleaved(QUERIES, {
    entitySearch: (i) => search.searchEntities({ organizationId, knowledgeBaseIds: [big.knowledgeBaseId], text: texts[i], limit: 5 }),
    rawEntitySearch,
    twoHop: (i) => graph.neighbourhood(big, [seedIds[i % seedIds.length]], 2, 100),
    rawTwoHop,
    selectOne: () => raw('SELECT 1', []),
  });
  const latency = {
    entities: stats.totalEntities,
    relationships: stats.totalRelationships,
    loadSeconds,
    target: 'p50 <= 20 ms for entitySearch and twoHop',
    ...series,
    baselines:
      'rawEntitySearch: entity rows (mention count, document ids) of the query keys, relationships touching them, the neighbours rows; ' +
      'rawTwoHop: a 2-hop self-join giving the nearest 100 entity rows, then the relationships among them; selectOne: one round trip',
  };
  console.log({ latency });
  await h.close();

  // a light request while a large document's graph is extracted on the running platform
  const large: string[] = [];
  for (let i = 0, size = 0; size < DOC_KB * 1024; i++) {
    const paragraph = CORPUS[i % CORPUS.length].text;
    large.push(paragraph);
    size += paragraph.length + 2;
  }
  const lightRequest = await lightRequestDuringGraphExtraction(large.join('\n\n'), SECONDS);
  console.log({ lightRequest });
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
    lightRequestDuringExtraction: lightRequest,
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
