import type { GraphStore } from '../../core/ports/graph-store';
import { defineAdapter } from '../kit/adapter-definition';

/** GRAPH_STORE=postgres (default): graph tables in the relational Postgres (PGlite, or DATABASE_URL). */
export const postgresGraphStore = defineAdapter<GraphStore>({
  id: 'postgres',
  description: 'Graph tables (recursive SQL traversal) in the relational Postgres',
  selectedWhen: [],
  async create(_settings, { db }) {
    const { PostgresGraphStore } = await import('./postgres.graph-store');
    return new PostgresGraphStore(db.knex);
  },
});
