/**
 * Graph-informed retrieval (spec 2.8, 4.9): the graph discovery of a search runs next to vector and text
 * retrieval, and its hits are merged here: a chunk both found gains `graph` and its `relationshipPath`; a
 * chunk only the graph found is added with the sentence that states the relationship. Kept apart from the
 * fusion in search.ts so that code can change without touching this.
 */
import type { GraphChunkHit } from '../ports/graph-search';
import type { KnowledgeDeps } from './knowledge-deps';
import type { SearchResult } from './search-result';

/**
 * A chunk only the graph found ranks below comparable direct matches: its score is the relationship's
 * (weight, decayed per hop) scaled by this factor.
 */
export const GRAPH_ONLY_SCORE_FACTOR = 0.5;

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

/**
 * Merges graph hits into ranked results, ordered by score, keeping at most `perKnowledgeBase` results per
 * knowledge base (the search's topK), so graph-only chunks enter only where they outrank the others.
 */
export async function mergeGraphDiscovery(
  deps: KnowledgeDeps,
  organizationId: string,
  results: SearchResult[],
  hits: GraphChunkHit[],
  perKnowledgeBase: number,
): Promise<SearchResult[]> {
  if (hits.length === 0) return results;
  const out = results.map((r) => ({ ...r, discoveryMethods: [...r.discoveryMethods] }));
  const added: GraphChunkHit[] = [];
  for (const h of hits) {
    const same = out.find((r) => r.metadata.documentId === h.documentId && r.metadata.chunkIndex === h.chunkIndex);
    if (same) {
      if (!same.discoveryMethods.includes('graph')) same.discoveryMethods.push('graph');
      same.relationshipPath ??= h.relationshipPath;
    } else if (added.length < perKnowledgeBase * 4) added.push(h);
  }
  if (added.length) {
    const docs = await deps.store.repos.documents.findMany(organizationId, [...new Set(added.map((h) => h.documentId))]);
    const titles = new Map(docs.map((d) => [d.id, d.title]));
    for (const h of added) {
      if (!titles.has(h.documentId)) continue; // deleted meanwhile
      out.push({
        content: h.evidence,
        score: Math.round(Math.max(0, Math.min(1, h.score * GRAPH_ONLY_SCORE_FACTOR)) * 10000) / 10000,
        knowledgeBaseId: h.knowledgeBaseId,
        metadata: { documentId: h.documentId, documentTitle: titles.get(h.documentId)!, chunkIndex: h.chunkIndex, embeddingType: 'text' },
        discoveryMethods: ['graph'],
        relationshipPath: h.relationshipPath,
      });
    }
  }
  const kept = new Map<string, number>();
  return out
    .sort((a, b) => b.score - a.score)
    .filter((r) => {
      const n = kept.get(r.knowledgeBaseId) ?? 0;
      kept.set(r.knowledgeBaseId, n + 1);
      return n < perKnowledgeBase;
    });
}
