import type { VectorIndex } from '../../core/ports/vector-index';
import { defineAdapter } from '../kit/adapter-definition';

/** VECTOR_INDEX=pgvector (default): vectors and full text in the relational Postgres (PGlite, or DATABASE_URL with pgvector). */
export const pgvectorVectorIndex = defineAdapter<VectorIndex>({
  id: 'pgvector',
  description: 'pgvector + tsvector in the relational Postgres',
  selectedWhen: [],
  async create(_settings, { db, log }) {
    const { PgvectorVectorIndex } = await import('./pgvector.vector-index');
    return PgvectorVectorIndex.open({
      knex: db.knex,
      onError: (error) =>
        log('warn', 'pgvector: moving staged chunks into the HNSW index failed (retried on the next large write or restart)', error),
    });
  },
});
