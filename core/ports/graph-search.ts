/** An entity of a knowledge base's extracted graph that matched the chat query. */
export interface GraphEntityHit {
  name: string;
  type: string;
  description: string | null;
  knowledgeBaseId: string;
  /** Short "relation: other entity" lines. */
  relations: string[];
  score: number;
}

/**
 * Entity search over the knowledge graphs of the given knowledge bases (chat pipeline step "graph entity
 * search", spec 4.4). The graph area provides the adapter; until it lands, `noGraphSearch` finds nothing.
 */
export interface GraphSearch {
  searchEntities(query: { organizationId: string; knowledgeBaseIds: string[]; text: string; limit: number }): Promise<GraphEntityHit[]>;
}
export const GRAPH_SEARCH = Symbol.for('GraphSearch');

export const noGraphSearch: GraphSearch = { searchEntities: async () => [] };
