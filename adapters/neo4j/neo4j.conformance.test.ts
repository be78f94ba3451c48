/**
 * The shared GraphStore conformance suite against a live Neo4j 5. Neo4j cannot run on the development and
 * CI machines, so this file is skipped unless TEST_NEO4J_URL is set, e.g. against the docker-compose stack:
 * `TEST_NEO4J_URL=bolt://127.0.0.1:7687 TEST_NEO4J_PASSWORD=... npm run jest -- adapters/neo4j`.
 * The store is built by the adapter definition (the same path GRAPH_STORE=neo4j takes at boot), so the
 * constraints and indexes are created first. What always runs here is the contract tests beside it.
 */
import { graphStoreConformance } from '../../test/conformance/graph-store.conformance';
import type { AdapterContext } from '../kit/adapter-definition';
import { neo4jGraphStore } from './neo4j.adapters';

const url = process.env.TEST_NEO4J_URL;

if (url) {
  graphStoreConformance('Neo4j (live)', async () => {
    const store = await neo4jGraphStore.create(
      {
        NEO4J_URL: url,
        NEO4J_USER: process.env.TEST_NEO4J_USER ?? 'neo4j',
        NEO4J_PASSWORD: process.env.TEST_NEO4J_PASSWORD ?? '',
        ...(process.env.TEST_NEO4J_DATABASE ? { NEO4J_DATABASE: process.env.TEST_NEO4J_DATABASE } : {}),
      },
      {} as AdapterContext, // the Neo4j adapter uses no shared context
    );
    // the suite's organizations and knowledge bases are random and it deletes its knowledge base at the end
    return { store, teardown: () => store.close() };
  });
} else {
  describe.skip('GraphStore conformance: neo4j (set TEST_NEO4J_URL to run against a live server)', () => {
    it('needs a live Neo4j', () => undefined);
  });
}
