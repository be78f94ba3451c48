import type { VectorIndex } from '../../core/ports/vector-index';
import { defineAdapter, setting } from '../kit/adapter-definition';

/** VECTOR_INDEX=pgvector (default): vectors and full text in the relational Postgres (PGlite, or DATABASE_URL with pgvector). */
export const pgvectorVectorIndex = defineAdapter<VectorIndex>({
  id: 'pgvector',
  description: 'pgvector + tsvector in the relational Postgres',
  selectedWhen: [],
  settings: {
    PGVECTOR_DEFER_HNSW_ABOVE: {
      type: 'integer',
      minimum: 0,
      // Off by default: on 2 cores the background linking competes with the request loop for CPU (GET
      // /api/auth/me p99 while a 2 MB document ingests: 225 ms staged, 40 ms not; heavy-work bench).
      description:
        'Off unless set: documents with more chunks are searchable at once and linked into the HNSW index in the background (faster to complete, more CPU contention meanwhile)',
    },
    PGVECTOR_ROWS_PER_TRANSACTION: {
      type: 'integer',
      minimum: 0,
      description:
        'Rows of a new document written per transaction (default 16 on the embedded store, whose one session a long transaction would hold against every other request; 0 on a server: the whole document in one)',
    },
  },
  async create(settings, { db, log }) {
    const { PgvectorVectorIndex } = await import('./pgvector.vector-index');
    return PgvectorVectorIndex.open({
      knex: db.knex,
      deferIndexAbove: setting.number(settings, 'PGVECTOR_DEFER_HNSW_ABOVE'),
      rowsPerTransaction: setting.number(settings, 'PGVECTOR_ROWS_PER_TRANSACTION') ?? (db.kind === 'pglite' ? 16 : 0),
      onError: (error) =>
        log('warn', 'pgvector: moving staged chunks into the HNSW index failed (retried on the next large write or restart)', error),
    });
  },
});
