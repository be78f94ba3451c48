/**
 * Graph-informed retrieval (spec 2.8, 4.9): the graph discovery of a search runs next to vector and text
 * retrieval, and its hits are merged here: a chunk both found gains `graph` and its `relationshipPath`; a
 * chunk only the graph found is added with the sentence that states the relationship. Kept apart from the
 * fusion in search.ts so that code can change without touching this.
 */
import type { GraphChunkHit } from '../ports/graph-search';
import type { KnowledgeDeps } from './knowledge-deps';
import type { SearchResult } from './search-result';

/** Starts graph discovery (never fails the search: a broken graph store only loses the graph results). */
export function startGraphDiscovery(
  deps: KnowledgeDeps,
  query: { organizationId: string; knowledgeBaseIds: string[]; text: string | undefined; limit: number },
): Promise<GraphChunkHit[]> {
  if (!deps.graphSearch || !query.text?.trim()) return Promise.resolve([]);
  return deps.graphSearch
    .discoverChunks({
      organizationId: query.organizationId,
      knowledgeBaseIds: query.knowledgeBaseIds,
      text: query.text,
      limit: query.limit,
    })
    .catch((error) => {
      deps.log('warn', 'graph discovery failed; results without the graph', error);
      return [];
    });
}

/** Merges graph hits into ranked results; at most `maxAdded` graph-only results, then ordered by score. */
export async function mergeGraphDiscovery(
  deps: KnowledgeDeps,
  organizationId: string,
  results: SearchResult[],
  hits: GraphChunkHit[],
  maxAdded: number,
): Promise<SearchResult[]> {
  if (hits.length === 0) return results;
  const out = results.map((r) => ({ ...r, discoveryMethods: [...r.discoveryMethods] }));
  const added: GraphChunkHit[] = [];
  for (const h of hits) {
    const same = out.find((r) => r.metadata.documentId === h.documentId && r.metadata.chunkIndex === h.chunkIndex);
    if (same) {
      if (!same.discoveryMethods.includes('graph')) same.discoveryMethods.push('graph');
      same.relationshipPath ??= h.relationshipPath;
    } else if (added.length < maxAdded) added.push(h);
  }
  if (added.length) {
    const docs = await deps.store.repos.documents.findMany(organizationId, [...new Set(added.map((h) => h.documentId))]);
    const titles = new Map(docs.map((d) => [d.id, d.title]));
    for (const h of added) {
      if (!titles.has(h.documentId)) continue; // deleted meanwhile
      out.push({
        content: h.evidence,
        score: Math.max(0, Math.min(1, h.score)),
        knowledgeBaseId: h.knowledgeBaseId,
        metadata: { documentId: h.documentId, documentTitle: titles.get(h.documentId)!, chunkIndex: h.chunkIndex, embeddingType: 'text' },
        discoveryMethods: ['graph'],
        relationshipPath: h.relationshipPath,
      });
    }
  }
  return out.sort((a, b) => b.score - a.score);
}
