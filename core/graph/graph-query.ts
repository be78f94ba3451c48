/**
 * Finding things through the graph, one code path for the graph search endpoint, the chat's graph step and
 * graph-informed retrieval: the query's word n-grams are folded into keys and matched to entity names and
 * aliases; the neighbourhood of the matches (1 hop for context, 2 hops for discovery) gives relationships,
 * and the chunks that state them are results with their relationship path.
 */
import type { Actor } from '../identity/actor';
import type { GraphChunkHit, GraphEntityHit, GraphQuery, GraphSearch } from '../ports/graph-search';
import type { GraphEntity, GraphRelationship, GraphStore } from '../ports/graph-store';
import { DomainError } from '../shared/errors';
import { graphScope } from './entities';
import type { GraphDeps } from './graph-deps';
import { toEntityView, toRelationshipView } from './graph-views';
import { foldName } from './names';
import { NOT_NAMES } from './offline-lexicon';

const MAX_GRAM = 4;
const NEIGHBOURHOOD_LIMIT = 100;
const HOP_DECAY = 0.7;

/** Folded word n-grams (1-4 words) of a text, without single stop words. */
export function queryKeys(text: string): string[] {
  const words = (text.match(/[\p{L}\p{N}][\p{L}\p{M}\p{N}'’-]*/gu) ?? []).slice(0, 200);
  const keys = new Set<string>();
  for (let i = 0; i < words.length; i++)
    for (let n = 1; n <= MAX_GRAM && i + n <= words.length; n++) {
      const gram = words.slice(i, i + n);
      if (n === 1 && (NOT_NAMES.has(gram[0].toLowerCase()) || gram[0].length < 3)) continue;
      const key = foldName(gram.join(' '));
      if (key) keys.add(key);
    }
  return [...keys];
}

async function matchEntities(graph: GraphStore, q: GraphQuery): Promise<GraphEntity[]> {
  return graph.findByKeys(q.organizationId, q.knowledgeBaseIds, queryKeys(q.text));
}

const describe = (r: GraphRelationship, names: Map<string, string>) =>
  `${names.get(r.sourceEntityId) ?? '?'} -[${r.type}]-> ${names.get(r.targetEntityId) ?? '?'}`;

/** The chat's graph step (spec 4.4) and the search endpoint share this. */
export async function entityContext(graph: GraphStore, q: GraphQuery) {
  const matched = await matchEntities(graph, q);
  const entities: GraphEntity[] = [];
  const relationships: GraphRelationship[] = [];
  for (const kbId of q.knowledgeBaseIds) {
    const seeds = matched.filter((e) => e.knowledgeBaseId === kbId).map((e) => e.id);
    if (seeds.length === 0) continue;
    const n = await graph.neighbourhood({ organizationId: q.organizationId, knowledgeBaseId: kbId }, seeds, 1, NEIGHBOURHOOD_LIMIT);
    entities.push(...n.entities);
    relationships.push(...n.relationships);
  }
  const names = new Map(entities.map((e) => [e.id, e.name]));
  return { matched, entities, relationships, names };
}

export function graphSearchOver(graph: GraphStore): GraphSearch {
  return {
    async searchEntities(q): Promise<GraphEntityHit[]> {
      const { matched, relationships, names } = await entityContext(graph, q);
      return matched
        .sort((a, b) => b.mentionCount - a.mentionCount || a.name.localeCompare(b.name))
        .slice(0, q.limit)
        .map((e) => ({
          name: e.name,
          type: e.type,
          description: e.description,
          knowledgeBaseId: e.knowledgeBaseId,
          relations: relationships
            .filter((r) => r.sourceEntityId === e.id || r.targetEntityId === e.id)
            .slice(0, 8)
            .map((r) => describe(r, names)),
          score: Math.min(1, 0.5 + 0.05 * e.mentionCount),
        }));
    },
    discoverChunks: (q) => discoverChunks(graph, q),
  };
}

/** Chunks stating relationships within two hops of the query's entities, best path per chunk. */
export async function discoverChunks(graph: GraphStore, q: GraphQuery): Promise<GraphChunkHit[]> {
  const matched = await matchEntities(graph, q);
  const hits = new Map<string, GraphChunkHit>();
  for (const kbId of q.knowledgeBaseIds) {
    const seeds = matched.filter((e) => e.knowledgeBaseId === kbId);
    if (seeds.length === 0) continue;
    const scope = { organizationId: q.organizationId, knowledgeBaseId: kbId };
    const n = await graph.neighbourhood(
      scope,
      seeds.map((e) => e.id),
      2,
      NEIGHBOURHOOD_LIMIT,
    );
    const names = new Map(n.entities.map((e) => [e.id, e.name]));
    // Breadth-first from the seeds: the path that reaches each entity, then each relationship's path.
    const pathTo = new Map<string, string[]>(seeds.map((e) => [e.id, [e.name]]));
    let frontier = seeds.map((e) => e.id);
    const used = new Set<string>();
    for (let hop = 1; hop <= 2 && frontier.length; hop++) {
      const next: string[] = [];
      for (const r of n.relationships) {
        if (used.has(r.id)) continue;
        const from = frontier.find((id) => id === r.sourceEntityId || id === r.targetEntityId);
        if (!from) continue;
        used.add(r.id);
        const other = from === r.sourceEntityId ? r.targetEntityId : r.sourceEntityId;
        const step = [names.get(r.sourceEntityId) ?? '?', r.type, names.get(r.targetEntityId) ?? '?'];
        const prefix = pathTo.get(from)!;
        const path = hop === 1 ? step : [...prefix.slice(0, -1), ...(from === r.sourceEntityId ? step : [...step].reverse())];
        if (!pathTo.has(other)) {
          pathTo.set(other, hop === 1 ? [names.get(from)!, r.type, names.get(other) ?? '?'] : path);
          next.push(other);
        }
        const score = Math.round(r.weight * HOP_DECAY ** (hop - 1) * 10000) / 10000;
        const key = `${r.documentId}:${r.chunkIndex}`;
        const seen = hits.get(key);
        if (!seen || seen.score < score)
          hits.set(key, {
            knowledgeBaseId: kbId,
            documentId: r.documentId,
            chunkIndex: r.chunkIndex,
            evidence: r.evidence ?? step.join(' '),
            score,
            relationshipPath: path,
          });
      }
      frontier = next;
    }
  }
  return [...hits.values()].sort((a, b) => b.score - a.score).slice(0, q.limit);
}

/** POST /graph/search: entities matching the query (or a described image) with their 1-hop neighbourhood. */
export async function searchGraph(
  deps: GraphDeps,
  actor: Actor,
  knowledgeBaseId: string,
  body: { query: string; imageBase64?: string; mimeType?: string },
) {
  const scope = await graphScope(deps, actor, knowledgeBaseId, 'read');
  let text = body.query?.trim() ?? '';
  if (!text) throw new DomainError('VALIDATION', 'query is required');
  if (body.imageBase64) {
    if (!body.mimeType) throw new DomainError('VALIDATION', 'mimeType is required with imageBase64');
    if (!deps.imageDescriber)
      throw new DomainError('VALIDATION', 'Image search needs a vision-capable model to describe the image, and none is configured');
    const d = await deps.imageDescriber.describe(Buffer.from(body.imageBase64, 'base64'), { mimeType: body.mimeType });
    text = [text, d.caption, d.text].filter((s) => s?.trim()).join('\n');
  }
  const { matched, entities, relationships, names } = await entityContext(deps.graph, {
    organizationId: scope.organizationId,
    knowledgeBaseIds: [scope.knowledgeBaseId],
    text,
    limit: NEIGHBOURHOOD_LIMIT,
  });
  const formattedContext = [
    ...entities.map((e) => `${e.name} (${e.type})${e.aliases.length ? `, also ${e.aliases.join(', ')}` : ''}`),
    ...relationships.map((r) => describe(r, names)),
  ].join('\n');
  return {
    query: body.query,
    entities: entities.map(toEntityView),
    relationships: relationships.map(toRelationshipView),
    formattedContext,
    matchedEntityNames: matched.map((e) => e.name),
  };
}
