import { definePort } from '../../adapters/kit/port-registry';
import { neo4jGraphStore } from '../../adapters/neo4j/neo4j.adapters';
import { postgresGraphStore } from '../../adapters/postgres-graph/postgres-graph.adapters';
import { GRAPH_STORE, type GraphStore } from '../../core/ports/graph-store';
import { singleAdapterPort } from './platform-port';

export const graphStorePort = singleAdapterPort(
  definePort<GraphStore>({
    key: 'GRAPH_STORE',
    description: 'Knowledge graph store (entities, relationships, suggestions)',
    token: GRAPH_STORE,
    adapters: [postgresGraphStore, neo4jGraphStore],
  }),
  GRAPH_STORE,
);
