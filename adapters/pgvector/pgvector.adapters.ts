import type { VectorIndex } from '../../core/ports/vector-index';
import { defineAdapter, setting } from '../kit/adapter-definition';
import { EMBEDDED_DEFER_HNSW_ABOVE, EMBEDDED_HNSW, PGVECTOR_HNSW_DEFAULTS } from './pgvector.hnsw';

/** VECTOR_INDEX=pgvector (default): vectors and full text in the relational Postgres (PGlite, or DATABASE_URL with pgvector). */
export const pgvectorVectorIndex = defineAdapter<VectorIndex>({
  id: 'pgvector',
  description: 'pgvector + tsvector in the relational Postgres',
  selectedWhen: [],
  settings: {
    PGVECTOR_DEFER_HNSW_ABOVE: {
      type: 'integer',
      minimum: 0,
      // On by default on the embedded store, where linking is most of a row's cost: a 2 MB document under load
      // completed 1.5x sooner and GET /api/auth/me's p99 stayed the same (heavy-work bench, README). Off on a server.
      description:
        'Documents with more chunks are searchable as soon as they complete (exact distance) and linked into the HNSW index in the background (default 256 on the embedded store, off on a server; 1000000000 links every row as written)',
    },
    PGVECTOR_ROWS_PER_TRANSACTION: {
      type: 'integer',
      minimum: 0,
      description:
        'Rows of a new document written per transaction (default 16 on the embedded store, whose one session a long transaction would hold against every other request; 0 on a server: the whole document in one)',
    },
    PGVECTOR_HNSW_M: {
      type: 'integer',
      minimum: 2,
      maximum: 100,
      description:
        'HNSW neighbours per node (default 8 on the embedded store, where linking bounds ingestion; 16, pgvector’s own, on a server). A change rebuilds the index at the next start',
    },
    PGVECTOR_HNSW_EF_CONSTRUCTION: {
      type: 'integer',
      minimum: 4,
      maximum: 1000,
      description: 'HNSW candidate list while linking, at least 2 × PGVECTOR_HNSW_M (default 32 on the embedded store, 64 on a server)',
    },
  },
  async create(settings, { db, log }) {
    const { PgvectorVectorIndex } = await import('./pgvector.vector-index');
    const build = db.kind === 'pglite' ? EMBEDDED_HNSW : PGVECTOR_HNSW_DEFAULTS;
    const m = setting.number(settings, 'PGVECTOR_HNSW_M') ?? build.m;
    return PgvectorVectorIndex.open({
      knex: db.knex,
      hnsw: {
        m,
        efConstruction: setting.number(settings, 'PGVECTOR_HNSW_EF_CONSTRUCTION') ?? Math.max(build.efConstruction, 2 * m),
      },
      deferIndexAbove:
        setting.number(settings, 'PGVECTOR_DEFER_HNSW_ABOVE') ?? (db.kind === 'pglite' ? EMBEDDED_DEFER_HNSW_ABOVE : undefined),
      rowsPerTransaction: setting.number(settings, 'PGVECTOR_ROWS_PER_TRANSACTION') ?? (db.kind === 'pglite' ? 16 : 0),
      parallelKnowledgeBases: db.kind !== 'pglite',
      onError: (error) =>
        log('warn', 'pgvector: moving staged chunks into the HNSW index failed (retried on the next large write or restart)', error),
    });
  },
});
