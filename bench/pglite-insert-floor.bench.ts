/**
 * How fast the embedded store itself takes rows of a chunk's shape (issue 7's ingestion target of 1,000
 * chunks/s end to end): PGlite alone, on disk as the platform runs it, no platform around it, the same rows
 * (1,568 chunks of the ingest bench's synthetic text, 384-dimension vectors) inserted 500 a statement in one
 * transaction into a fresh table, with the chunk table's indexes added one kind at a time. No BM25
 * statistics triggers, so each figure is above what the platform's own table can reach.
 *
 *   npx tsx bench/pglite-insert-floor.bench.ts     writes bench/results/pglite-insert-floor.json
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';

import { GIN_PENDING_LIST_KB } from '../adapters/pgvector/pgvector.schema';
import { SEARCH_TEXT_FUNCTION, tsvExpression } from '../adapters/pgvector/pgvector.search-text';
import { textGenerator } from './support/synthetic-text';

const ROOT = path.resolve(__dirname, '..');
const ROWS = Number(process.env.BENCH_ROWS ?? 1568);
const DIMENSIONS = 384;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

/** Each step adds one kind of index to the one before, as the chunk table has them. */
const STEPS: { name: string; indexes: string[] }[] = [
  { name: 'no index (primary key only)', indexes: [] },
  {
    name: 'btree scope and document',
    indexes: ['CREATE INDEX ON t (organization_id, knowledge_base_id)', 'CREATE INDEX ON t (document_id, chunk_index)'],
  },
  { name: '+ GIN full text', indexes: [`CREATE INDEX ON t USING gin (tsv) WITH (gin_pending_list_limit = ${GIN_PENDING_LIST_KB})`] },
  {
    name: '+ HNSW m 8 / ef_construction 32',
    indexes: ['CREATE INDEX ON t USING hnsw (embedding vector_cosine_ops) WITH (m = 8, ef_construction = 32)'],
  },
];

function rowsOf(count: number) {
  const text = textGenerator(11);
  let seed = 3;
  const random = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const ids = { organization: randomUUID(), knowledgeBase: randomUUID(), document: randomUUID() };
  return Array.from({ length: count }, (_, i) => [
    randomUUID(),
    ids.organization,
    ids.knowledgeBase,
    ids.document,
    i,
    text.document(600).slice(0, 700),
    `[${Array.from({ length: DIMENSIONS }, () => (random() - 0.5).toFixed(6)).join(',')}]`,
  ]);
}

async function rowsPerSecond(indexes: string[], rows: unknown[][]): Promise<{ rowsPerSecond: number; cpuMsPerRow: number }> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ap-bench-floor-'));
  const db = await PGlite.create({ dataDir, extensions: { vector } });
  try {
    await db.exec('CREATE EXTENSION IF NOT EXISTS vector');
    await db.exec(SEARCH_TEXT_FUNCTION);
    await db.exec(`CREATE TABLE t (
      id uuid PRIMARY KEY, organization_id uuid NOT NULL, knowledge_base_id uuid NOT NULL, document_id uuid NOT NULL,
      chunk_index integer NOT NULL, content text NOT NULL, embedding vector(${DIMENSIONS}) NOT NULL,
      metadata jsonb NOT NULL DEFAULT '{}', tsv tsvector GENERATED ALWAYS AS (${tsvExpression('english')}) STORED)`);
    for (const sql of indexes) await db.exec(sql);
    const started = performance.now();
    const cpu = process.cpuUsage();
    await db.transaction(async (tx) => {
      for (let i = 0; i < rows.length; i += 500) {
        const part = rows.slice(i, i + 500);
        const values = part.map((_, j) => `(${Array.from({ length: 7 }, (_v, k) => `$${j * 7 + k + 1}`).join(',')})`);
        await tx.query(
          `INSERT INTO t (id, organization_id, knowledge_base_id, document_id, chunk_index, content, embedding) VALUES ${values.join(',')}`,
          part.flat(),
        );
      }
    });
    const ms = performance.now() - started;
    const used = process.cpuUsage(cpu);
    return {
      rowsPerSecond: Math.round(rows.length / (ms / 1000)),
      cpuMsPerRow: +((used.user + used.system) / 1000 / rows.length).toFixed(2),
    };
  } finally {
    await db.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  const rows = rowsOf(ROWS);
  const steps: { name: string; runs: { rowsPerSecond: number; cpuMsPerRow: number }[] }[] = STEPS.map((s) => ({ name: s.name, runs: [] }));
  // Rounds alternate the steps, so a drift of the machine's speed touches each alike.
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < STEPS.length; i++)
      steps[i]!.runs.push(
        await rowsPerSecond(
          STEPS.slice(0, i + 1).flatMap((s) => s.indexes),
          rows,
        ),
      );
  }
  const result = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: os.cpus().length,
    rows: ROWS,
    dimensions: DIMENSIONS,
    loadAverage: os.loadavg().map((l) => +l.toFixed(2)),
    steps,
    note: 'PGlite alone, on disk, one transaction, 500 rows a statement; each step adds its indexes to those of the steps before. The target of 1,000 chunks/s end to end needs the store to take them faster than that.',
  };
  await mkdir(path.join(ROOT, 'bench/results'), { recursive: true });
  await writeFile(path.join(ROOT, 'bench/results/pglite-insert-floor.json'), `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(steps.map((s) => ({ step: s.name, rowsPerSecond: s.runs.map((r) => r.rowsPerSecond) })))}\n`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
