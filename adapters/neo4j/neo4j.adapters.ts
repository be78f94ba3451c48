import type { GraphStore } from '../../core/ports/graph-store';
import { defineAdapter, setting } from '../kit/adapter-definition';

/**
 * GRAPH_STORE=neo4j: the knowledge graph in Neo4j 5 (one database per deployment, tenants as indexed
 * properties). The driver is imported only when selected; constraints and indexes are created at start.
 */
export const neo4jGraphStore = defineAdapter<GraphStore>({
  id: 'neo4j',
  description: 'Neo4j 5 (parameterised Cypher, organization and knowledge base as indexed properties)',
  settings: {
    NEO4J_URL: { type: 'string', pattern: '^(bolt|neo4j)(\\+s|\\+ssc)?://[^\\s]+$', description: 'Bolt URL, e.g. bolt://neo4j:7687' },
    NEO4J_USER: { type: 'string', minLength: 1, default: 'neo4j', description: 'Neo4j user' },
    NEO4J_PASSWORD: { type: 'string', description: 'Neo4j password' },
    NEO4J_DATABASE: {
      type: 'string',
      pattern: '^[A-Za-z][A-Za-z0-9.-]{2,62}$',
      description: "Database name (the server's default database when unset)",
    },
  },
  requires: ['NEO4J_URL', 'NEO4J_PASSWORD'],
  async create(settings) {
    const neo4j = (await import('neo4j-driver')).default;
    const { Neo4jGraphStore } = await import('./neo4j.graph-store');
    const driver = neo4j.driver(
      setting.requiredString(settings, 'NEO4J_URL'),
      neo4j.auth.basic(setting.string(settings, 'NEO4J_USER') ?? 'neo4j', setting.requiredString(settings, 'NEO4J_PASSWORD')),
    );
    const store = new Neo4jGraphStore({ driver, database: setting.string(settings, 'NEO4J_DATABASE'), ownsDriver: true });
    try {
      await store.start();
    } catch (error) {
      await driver.close();
      throw error;
    }
    return store;
  },
});
