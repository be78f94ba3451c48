/**
 * Build parameters of the chunk tables' HNSW index. Linking a row into the graph is most of the cost of
 * writing it; on the embedded store (pgvector in WASM, no SIMD) it bounds ingestion: writing a 1024-dimension
 * row cost about 5.9 ms of CPU with pgvector's defaults (m 16, ef_construction 64) and 3.0 ms with m 8,
 * ef_construction 32, whose recall@10 against exact search on the benchmark's rows is the same, 0.996
 * (bench/ingest-throughput.bench.ts). A server keeps pgvector's defaults unless told otherwise.
 */
import type { Knex } from 'knex';

import type { VectorSpace } from './pgvector.space';

export interface HnswBuild {
  /** Neighbours per node (pgvector's default 16). */
  m: number;
  /** Candidate list while linking (pgvector's default 64; at least 2 * m). */
  efConstruction: number;
}

/** pgvector's own defaults: an index created without WITH (...) has these. */
export const PGVECTOR_HNSW_DEFAULTS: HnswBuild = { m: 16, efConstruction: 64 };
/** The embedded store's (see the header). */
export const EMBEDDED_HNSW: HnswBuild = { m: 8, efConstruction: 32 };
/**
 * On the embedded store, a new document with more chunks than this is written to the staged table (searchable by
 * exact distance) and linked into the HNSW graph in the background, so it completes without waiting for the links.
 */
export const EMBEDDED_DEFER_HNSW_ABOVE = 256;

export function checkHnswBuild(hnsw: HnswBuild): HnswBuild {
  const { m, efConstruction } = hnsw;
  // pgvector's own bounds: m 2-100, ef_construction 4-1000 and at least twice m
  if (!Number.isInteger(m) || m < 2 || m > 100) throw new Error(`pgvector index: HNSW m must be an integer from 2 to 100, got ${m}`);
  if (!Number.isInteger(efConstruction) || efConstruction < 2 * m || efConstruction > 1000)
    throw new Error(`pgvector index: HNSW ef_construction must be an integer from 2 * m to 1000, got ${efConstruction}`);
  return hnsw;
}

export const hnswIndexOf = (space: VectorSpace) => `${space.table}_embedding_hnsw`;

/** `USING hnsw (...) WITH (...)`; no WITH clause for pgvector's defaults, so existing definitions are unchanged. */
export function hnswDefinition(space: VectorSpace, hnsw: HnswBuild): string {
  const ops = space.elementType === 'halfvec' ? 'halfvec_cosine_ops' : 'vector_cosine_ops';
  const same = hnsw.m === PGVECTOR_HNSW_DEFAULTS.m && hnsw.efConstruction === PGVECTOR_HNSW_DEFAULTS.efConstruction;
  return `USING hnsw (embedding ${ops})${same ? '' : ` WITH (m = ${hnsw.m}, ef_construction = ${hnsw.efConstruction})`}`;
}

/** The build parameters of an existing index (pgvector's defaults where its reloptions say nothing); null when absent. */
export async function currentHnswBuild(db: Knex | Knex.Transaction, index: string): Promise<HnswBuild | null> {
  const result = await db.raw('SELECT reloptions FROM pg_class WHERE relname = ? AND relkind = ?', [index, 'i']);
  if (!result.rows.length) return null;
  const options = new Map<string, string>(
    ((result.rows[0].reloptions as string[] | null) ?? []).map((o) => o.split('=', 2) as [string, string]),
  );
  return {
    m: Number(options.get('m') ?? PGVECTOR_HNSW_DEFAULTS.m),
    efConstruction: Number(options.get('ef_construction') ?? PGVECTOR_HNSW_DEFAULTS.efConstruction),
  };
}

/**
 * Rebuilds the HNSW index of each space whose build parameters differ from `hnsw`: the new index is built
 * beside the old one, which is dropped and the new one renamed in the same transaction, so a failure (or a
 * stop) part-way leaves the old index in place and searches never run without one. Returns the rebuilt tables.
 */
export async function rebuildHnswIndexes(db: Knex, spaces: VectorSpace[], hnsw: HnswBuild): Promise<string[]> {
  const rebuilt: string[] = [];
  for (const space of spaces) {
    const index = hnswIndexOf(space);
    const matches = (b: HnswBuild | null) => b !== null && b.m === hnsw.m && b.efConstruction === hnsw.efConstruction;
    if (matches(await currentHnswBuild(db, index))) continue;
    const done = await db.transaction(async (trx) => {
      // the same lock as createSpace: processes starting together rebuild once, the others see it done
      await trx.raw('SELECT pg_advisory_xact_lock(?)', [0x6b7600 + space.dimensions]);
      if (matches(await currentHnswBuild(trx, index))) return false;
      const next = `${index}_rebuild`;
      await trx.raw(`DROP INDEX IF EXISTS ${next}`);
      await trx.raw(`CREATE INDEX ${next} ON ${space.table} ${hnswDefinition(space, hnsw)}`);
      await trx.raw(`DROP INDEX IF EXISTS ${index}`);
      await trx.raw(`ALTER INDEX ${next} RENAME TO ${index}`);
      return true;
    });
    if (done) rebuilt.push(space.table);
  }
  return rebuilt;
}
