/**
 * Search through the gateway: the platform in-process (embedded PGlite, offline embedder at its default 1,024
 * dimensions), one knowledge base of `chunks` synthetic chunks in documents of 100, and POST
 * /api/knowledge/search through the gateway one request at a time. In the same run and on the same knowledge
 * base: the retrieval use case called in-process, and the raw vector and raw text queries, so the gateway
 * figure is reported against them.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';

import type { Knex } from 'knex';

import { UNBUDGETED } from '../../adapters/pgvector/pgvector.bm25';
import { hnswDefinition, hnswIndexOf } from '../../adapters/pgvector/pgvector.hnsw';
import { spaceFor } from '../../adapters/pgvector/pgvector.space';
import { PgvectorVectorIndex } from '../../adapters/pgvector/pgvector.vector-index';
import { startPlatform } from '../../app/platform';
import { retrieve } from '../../core/knowledge/retrieve';
import type { VectorIndex } from '../../core/ports/vector-index';
import { writeChunks } from '../../test/chat/seed-knowledge';
import { benchConfig } from './bench-config';
import { timeEach, timeInterleaved } from './latency';
import { textGenerator } from './synthetic-text';

const CHUNKS_PER_DOC = 100;
const WARM_UP_SEARCHES = 150;

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
function post(url: URL, pathname: string, token: string, body: unknown): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: Number(url.port),
        method: 'POST',
        path: pathname,
        agent,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

async function json(base: URL, pathname: string, token: string | null, body: unknown) {
  const res = await fetch(new URL(pathname, base), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const data = (await res.json()) as Record<string, any>;
  if (res.status >= 300) throw new Error(`POST ${pathname}: ${res.status} ${JSON.stringify(data)}`);
  return data;
}

/**
 * The full-text half with the default select budget (pgvector.bm25.ts) against the same half with every rare
 * term selecting: how much of the unbudgeted top 10 the budget keeps, and both times.
 */
async function textBudgetAgainstUnbudgeted(knex: Knex, budgeted: VectorIndex, organizationId: string, kb: string, questions: string[]) {
  const unbudgeted = await PgvectorVectorIndex.open({ knex, textSelectBudget: UNBUDGETED });
  const query = (i: number) => ({
    organizationId,
    knowledgeBaseIds: [kb],
    embedding: null,
    text: questions[i],
    candidatesPerKnowledgeBase: 40,
  });
  let kept = 0;
  let total = 0;
  for (let i = 0; i < questions.length; i++) {
    const truth = new Set((await unbudgeted.search(query(i))).text.slice(0, 10).map((c) => c.chunk.id));
    kept += (await budgeted.search(query(i))).text.slice(0, 10).filter((c) => truth.has(c.chunk.id)).length;
    total += truth.size;
  }
  const times = await timeInterleaved(questions.length, {
    budgeted: (i) => budgeted.search(query(i)),
    unbudgeted: (i) => unbudgeted.search(query(i)),
  });
  await unbudgeted.close();
  return { top10KeptOfUnbudgeted: Math.round((kept / total) * 1000) / 1000, textHalf: times };
}

export async function gatewaySearch(options: { chunks: number; queries: number }) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ap-bench-search-'));
  const config = benchConfig(dataDir, { LOG_LEVEL: 'silent' });
  const platform = await startPlatform(config, { memoryDatabase: true });
  try {
    const infra = platform.infrastructure;
    const knex = infra.db.knex;
    const base = new URL(platform.gatewayUrl);
    const reg = await json(base, '/api/auth/register', null, {
      email: `bench-${randomUUID().slice(0, 8)}@example.com`,
      password: `pw-${randomUUID()}`,
      displayName: 'Bench',
    });
    const token = reg.data.accessToken as string;
    const organizationId = reg.data.user.organizations[0].id as string;
    const kb = (await json(base, '/api/knowledge/kb', token, { name: 'Bench KB' })).knowledgeBase as { id: string };

    // Bulk load as an operator would: the HNSW index dropped after the first document, rebuilt at the end.
    const gen = textGenerator(11);
    const dimensions = infra.knowledge.embeddingDimensions;
    const space = spaceFor(dimensions);
    const tLoad = performance.now();
    for (let d = 0; d < options.chunks / CHUNKS_PER_DOC; d++) {
      const documentId = randomUUID();
      const title = `synthetic-${d}.txt`;
      const now = new Date().toISOString();
      await knex('knowledge_documents').insert({
        id: documentId,
        organization_id: organizationId,
        knowledge_base_id: kb.id,
        title,
        mime_type: 'text/plain',
        processing_status: 'completed',
        chunk_count: CHUNKS_PER_DOC,
        summary: `Synthetic document ${d}`,
        created_at: now,
        updated_at: now,
        processed_at: now,
      });
      const texts = Array.from({ length: CHUNKS_PER_DOC }, () => gen.document(900).slice(0, 1000));
      await writeChunks({ infra, store: infra.store }, organizationId, kb.id, documentId, title, texts, 500);
      if (d === 0) await knex.raw(`DROP INDEX IF EXISTS ${hnswIndexOf(space)}`);
    }
    const loadSeconds = Math.round((performance.now() - tLoad) / 100) / 10;
    const tIndex = performance.now();
    const { hnsw } = infra.knowledge.vectorIndex as PgvectorVectorIndex; // the platform's build (m 8, ef_construction 32 here)
    await knex.raw(`CREATE INDEX ${hnswIndexOf(space)} ON ${space.table} ${hnswDefinition(space, hnsw)}`);
    const indexBuildSeconds = Math.round((performance.now() - tIndex) / 100) / 10;
    await knex.raw(`ANALYZE ${space.table}`);

    const questions = Array.from({ length: options.queries }, () => gen.question());
    const { vectors } = await infra.knowledge.embedder.embed(questions, { dimensions, purpose: 'query' });
    const literal = (i: number) => `[${vectors[i].join(',')}]`;
    const search = async (query: string) => {
      const r = await post(base, '/api/knowledge/search', token, { knowledgeBaseIds: [kb.id], query });
      if (r.status !== 200) throw new Error(`search ${r.status} ${r.text.slice(0, 200)}`);
    };
    const deps = {
      store: infra.store,
      vectorIndex: infra.knowledge.vectorIndex,
      embedder: infra.knowledge.embedder,
      reranker: infra.knowledge.reranker,
    };
    const n = options.queries;
    const inProcess = (q: string) => retrieve(deps, { organizationId, knowledgeBaseIds: [kb.id], query: q });
    // A server's steady state: the request path's code (JS, and the database's WASM) compiled by the optimizing
    // tiers. Searching 400 distinct questions one after another, the p50 of the first 50 was 29 ms and of the
    // last 200 about 23.5. The warm-up asks other questions than the measured ones, so no page or plan of a
    // measured question is warm because it was asked before.
    const warmUp = Array.from({ length: WARM_UP_SEARCHES }, () => gen.question());
    for (const q of warmUp) {
      await search(q);
      await inProcess(q);
    }
    // interleaved, so a change of the machine's load weighs on both alike (each question through the gateway first)
    const { gatewaySearch, retrieveInProcess } = await timeInterleaved(n, {
      gatewaySearch: (i) => search(questions[i]),
      retrieveInProcess: (i) => inProcess(questions[i]),
    });
    const textBudget = await textBudgetAgainstUnbudgeted(knex, infra.knowledge.vectorIndex, organizationId, kb.id, questions);
    return {
      textBudget,
      chunks: options.chunks,
      dimensions,
      loadSeconds,
      indexBuildSeconds,
      gatewaySearch,
      retrieveInProcess,
      rawSqlNearestNeighbours: await timeEach(n, (i) =>
        knex.raw(`SELECT id FROM ${space.table} ORDER BY embedding <=> ?::vector(${dimensions}) LIMIT 20`, [literal(i)]),
      ),
      rawSqlFullText: await timeEach(n, (i) =>
        knex.raw(
          `SELECT id FROM ${space.table} CROSS JOIN (SELECT replace(plainto_tsquery('english', ?)::text, '&', '|')::tsquery AS q) x
           WHERE knowledge_base_id = ? AND tsv @@ x.q ORDER BY ts_rank(tsv, x.q) DESC LIMIT 20`,
          [questions[i], kb.id],
        ),
      ),
    };
  } finally {
    await platform.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
