/**
 * Schema of the pgvector index: the extension, a registry of vector spaces, and one chunk table per
 * embedding size created on demand (`vector(d)` up to 2000 dimensions, `halfvec(d)` above, since pgvector's
 * HNSW index takes at most 2000 full-precision or 4000 half-precision dimensions), each with an HNSW
 * cosine index, a generated tsvector column with a GIN index, and btree indexes for the scope filters.
 *
 * The registry lives in its own migration set (bookkeeping table `vector_migrations`), run only when
 * VECTOR_INDEX=pgvector.
 */
import type { Knex } from 'knex';

import type { MigrationSet } from '../postgres/migrator';
import { createBm25Statistics, createStatsTriggers, replaceStatsFunction } from './pgvector.bm25';
import { type HnswBuild, hnswDefinition, hnswIndexOf, PGVECTOR_HNSW_DEFAULTS, rebuildHnswIndexes } from './pgvector.hnsw';
import { splitIdentifierSeparators, tsvExpression } from './pgvector.search-text';
import { spaceFor, type VectorSpace } from './pgvector.space';

export { MAX_DIMENSIONS, MAX_FULL_PRECISION_DIMENSIONS, spaceFor, type VectorSpace } from './pgvector.space';

export const PGVECTOR_MISSING_MESSAGE =
  'The PostgreSQL server lacks the pgvector extension (vector), which VECTOR_INDEX=pgvector needs. ' +
  'Install pgvector on the database server (https://github.com/pgvector/pgvector, e.g. the postgresql-<version>-pgvector package or the pgvector/pgvector Docker image) ' +
  'or set VECTOR_INDEX=elasticsearch with ELASTICSEARCH_URL.';

/** The vector migrations; `hnsw` is the build the index should have (0070 rebuilds indexes made otherwise). */
export const pgvectorMigrations = (hnsw: HnswBuild = PGVECTOR_HNSW_DEFAULTS): MigrationSet => ({
  table: 'vector_migrations',
  migrations: [
    {
      name: '0001_vector_spaces',
      async up(db: Knex) {
        await db.raw('CREATE EXTENSION IF NOT EXISTS vector');
        await db.schema.createTable('vector_spaces', (t) => {
          t.integer('dimensions').primary();
          t.text('table_name').notNullable().unique();
          t.text('element_type').notNullable();
          t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
        });
      },
    },
    { name: '0020_bm25_term_statistics', up: createBm25Statistics },
    { name: '0025_search_text_splits_identifiers', up: splitIdentifierSeparators },
    {
      name: '0070_hnsw_build_parameters',
      async up(db: Knex) {
        await rebuildHnswIndexes(db, await listSpaces(db), hnsw);
      },
    },
    {
      // rows written before keep their out-of-line tsvectors until rewritten (re-ingestion or VACUUM FULL)
      name: '0071_searched_columns_inline',
      async up(db: Knex) {
        for (const space of await listSpaces(db))
          for (const t of [space.table, stagedTableOf(space)]) await keepSearchedColumnsInline(db, t);
      },
    },
    {
      name: '0072_short_gin_pending_lists',
      async up(db: Knex) {
        for (const space of await listSpaces(db)) for (const t of [space.table, stagedTableOf(space)]) await shortenGinPendingList(db, t);
      },
    },
    { name: '0073_text_stats_kept_while_moving', up: replaceStatsFunction },
  ],
});

export class PgvectorUnavailableError extends Error {
  constructor(detail?: string) {
    super(detail ? `${PGVECTOR_MISSING_MESSAGE} (${detail})` : PGVECTOR_MISSING_MESSAGE);
    this.name = 'PgvectorUnavailableError';
  }
}

/**
 * Fails with a message naming the extension when the server cannot provide it: never a silent fallback.
 * Creates the extension when it is available but not yet enabled in this database.
 */
export async function ensurePgvectorExtension(db: Knex): Promise<string> {
  const installed = await db.raw("SELECT extversion FROM pg_extension WHERE extname = 'vector'");
  if (installed.rows.length) return installed.rows[0].extversion as string;
  const available = await db.raw("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'");
  try {
    await db.raw('CREATE EXTENSION IF NOT EXISTS vector');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (!available.rows.length) throw new PgvectorUnavailableError(reason);
    throw new Error(
      `The pgvector extension (vector) is installed on the server but could not be enabled in this database: ${reason}. Run CREATE EXTENSION vector as a superuser, or set VECTOR_INDEX=elasticsearch.`,
      { cause: error },
    );
  }
  const after = await db.raw("SELECT extversion FROM pg_extension WHERE extname = 'vector'");
  return after.rows[0]?.extversion as string;
}

const IDENT = /^[a-z_][a-z0-9_]*$/;

/**
 * Where a large document's rows wait for their HNSW entries: the same columns, full-text and scope indexes
 * and statistics triggers as the space's table, but no HNSW index, so writing them costs a tenth as much.
 * Search reads both tables (the staged rows by exact distance); the index moves the rows over in the background.
 */
export const stagedTableOf = (space: VectorSpace) => `${space.table}_staged`;

/** Columns in table order: the staged and indexed tables must agree, since search unions them. */
export const CHUNK_COLUMNS = [
  'id',
  'organization_id',
  'knowledge_base_id',
  'document_id',
  'chunk_index',
  'content',
  'embedding',
  'embedding_type',
  'importance',
  'metadata',
] as const;

/**
 * The full-text half reads every candidate's tsvector, and the exact vector scan every row's embedding. Left
 * to the defaults, a row over 2 KB had its largest columns moved out of line: the ~1.3 KB tsvector (1,024
 * dimensions, where the 4 KB embedding goes out anyway) or the embedding (256), so each candidate cost a TOAST
 * index lookup and two more page reads. At 10k chunks of 1,024 dimensions a scan matching 3,114 rows took
 * 57 ms, 20 ms with the tsvector in the row. Toasting now starts at 4 KB and the tsvector stays in the row
 * (MAIN): at 256 dimensions nothing leaves the row, at 1,024 and above only the embedding does, which the
 * HNSW walk does not read from the row.
 */
export async function keepSearchedColumnsInline(db: Knex | Knex.Transaction, table: string): Promise<void> {
  await db.raw(`ALTER TABLE ${table} ALTER COLUMN tsv SET STORAGE MAIN`);
  await db.raw(`ALTER TABLE ${table} SET (toast_tuple_target = 4080)`);
}

/**
 * The full-text index, with a short pending list. GIN queues new entries in an unsorted pending list that every
 * search reads whole, and merges it into the index only when it passes `gin_pending_list_limit` (4 MB by
 * default) or at a vacuum (which PGlite never runs on its own). After a bulk load of 10k chunks the list held
 * 507 pages: the text half's index scan read 517 pages and took 3.7 ms, against 10 pages and 0.1 ms once
 * merged. At 64 kB a search reads at most 8 pending pages; ingestion merges more often (end to end 355 against
 * 370 chunks/s in one run, within that bench's noise; without a pending list at all, 311).
 */
export const GIN_PENDING_LIST_KB = 64;
export const TSV_GIN = `USING gin (tsv) WITH (gin_pending_list_limit = ${GIN_PENDING_LIST_KB})`;

/** An existing full-text index gets the short pending list, and what it holds now is merged. */
export async function shortenGinPendingList(db: Knex | Knex.Transaction, table: string): Promise<void> {
  await db.raw(`ALTER INDEX ${table}_tsv_gin SET (gin_pending_list_limit = ${GIN_PENDING_LIST_KB})`);
  await db.raw(`SELECT gin_clean_pending_list('${table}_tsv_gin'::regclass)`);
}

/** Creates the chunk tables of one embedding size (idempotent, serialised by an advisory lock). */
export async function createSpace(
  db: Knex,
  space: VectorSpace,
  textSearchConfig: string,
  hnsw: HnswBuild = PGVECTOR_HNSW_DEFAULTS,
): Promise<void> {
  if (!IDENT.test(space.table) || !IDENT.test(textSearchConfig)) throw new Error('pgvector index: invalid identifier');
  const t = space.table;
  const staged = stagedTableOf(space);
  const column = `${space.elementType}(${space.dimensions})`;
  const table = (name: string) => `CREATE TABLE IF NOT EXISTS ${name} (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL,
      knowledge_base_id uuid NOT NULL,
      document_id uuid NOT NULL,
      chunk_index integer NOT NULL,
      content text NOT NULL,
      embedding ${column} NOT NULL,
      embedding_type text NOT NULL DEFAULT 'text',
      importance real NOT NULL DEFAULT 0.5,
      metadata jsonb NOT NULL DEFAULT '{}',
      tsv tsvector GENERATED ALWAYS AS (${tsvExpression(textSearchConfig)}) STORED
    )`;
  await db.transaction(async (trx) => {
    await trx.raw('SELECT pg_advisory_xact_lock(?)', [0x6b7600 + space.dimensions]);
    for (const name of [t, staged]) {
      await trx.raw(table(name));
      await keepSearchedColumnsInline(trx, name);
      await trx.raw(`CREATE INDEX IF NOT EXISTS ${name}_tsv_gin ON ${name} ${TSV_GIN}`);
      await trx.raw(`CREATE INDEX IF NOT EXISTS ${name}_scope ON ${name} (organization_id, knowledge_base_id)`);
      await trx.raw(`CREATE INDEX IF NOT EXISTS ${name}_document ON ${name} (document_id, chunk_index)`);
      await createStatsTriggers(trx, name);
    }
    await trx.raw(`CREATE INDEX IF NOT EXISTS ${hnswIndexOf(space)} ON ${t} ${hnswDefinition(space, hnsw)}`);
    await trx.raw('INSERT INTO vector_spaces (dimensions, table_name, element_type) VALUES (?, ?, ?) ON CONFLICT (dimensions) DO NOTHING', [
      space.dimensions,
      t,
      space.elementType,
    ]);
  });
}

export async function listSpaces(db: Knex | Knex.Transaction): Promise<VectorSpace[]> {
  const rows = await db('vector_spaces').select('dimensions').orderBy('dimensions');
  return rows.map((r: { dimensions: number }) => spaceFor(Number(r.dimensions)));
}
