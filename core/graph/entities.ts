/**
 * Browsing and curating a knowledge base's graph (spec 4.8): list, detail with the 1-hop neighbourhood,
 * rename, merge, delete, stats, pinned entities. Reads need read on the knowledge base, changes need edit;
 * another organization's knowledge base is 404.
 */
import type { Actor } from '../identity/actor';
import type { ResourcePermission } from '../identity/policy';
import { knowledgeBaseFor } from '../knowledge/kb-access';
import type { GraphScope, PinnedEntity } from '../ports/graph-store';
import { DomainError } from '../shared/errors';
import type { GraphDeps } from './graph-deps';
import { toEntityView, toRelationshipView } from './graph-views';
import { cleanName, foldName, normalizeType } from './names';

/** Relationships shown on an entity's detail. */
export const DETAIL_RELATIONSHIPS = 200;
export const MAX_PINNED = 500;

export async function graphScope(
  deps: GraphDeps,
  actor: Actor,
  knowledgeBaseId: string,
  permission: ResourcePermission,
): Promise<GraphScope> {
  const kb = await knowledgeBaseFor(deps.store.repos, actor, knowledgeBaseId, permission);
  return { organizationId: kb.organizationId, knowledgeBaseId: kb.id };
}

async function entityOf(deps: GraphDeps, scope: GraphScope, entityId: string) {
  const [entity] = await deps.graph.getEntities(scope, [entityId]);
  if (!entity || entity.hidden) throw new DomainError('NOT_FOUND', 'Entity not found');
  return entity;
}

export async function listEntities(
  deps: GraphDeps,
  actor: Actor,
  knowledgeBaseId: string,
  q: { type?: string; search?: string; documentId?: string; limit: number; offset: number },
) {
  const scope = await graphScope(deps, actor, knowledgeBaseId, 'read');
  const { items, total } = await deps.graph.listEntities(scope, {
    type: q.type ? normalizeType(q.type) : undefined,
    search: q.search?.trim() || undefined,
    documentId: q.documentId,
    limit: q.limit,
    offset: q.offset,
  });
  return { entities: items.map(toEntityView), total, limit: q.limit, offset: q.offset };
}

export async function getEntity(deps: GraphDeps, actor: Actor, knowledgeBaseId: string, entityId: string) {
  const scope = await graphScope(deps, actor, knowledgeBaseId, 'read');
  const entity = await entityOf(deps, scope, entityId);
  const relationships = await deps.graph.relationshipsOf(scope, [entity.id], DETAIL_RELATIONSHIPS);
  const otherIds = [...new Set(relationships.flatMap((r) => [r.sourceEntityId, r.targetEntityId]))].filter((id) => id !== entity.id);
  const connected = (await deps.graph.getEntities(scope, otherIds)).filter((e) => !e.hidden);
  return {
    entity: toEntityView(entity),
    connectedEntities: connected.map(toEntityView),
    relationships: relationships.map(toRelationshipView),
  };
}

export async function renameEntity(deps: GraphDeps, actor: Actor, knowledgeBaseId: string, entityId: string, rawName: string) {
  const scope = await graphScope(deps, actor, knowledgeBaseId, 'edit');
  const name = cleanName(rawName ?? '');
  const key = foldName(name);
  if (!key) throw new DomainError('VALIDATION', 'name must contain letters or digits');
  const entity = await entityOf(deps, scope, entityId);
  const [holder] = await deps.graph.findByKeys(scope.organizationId, [scope.knowledgeBaseId], [key]);
  if (holder && holder.id !== entity.id)
    throw new DomainError('CONFLICT', `The entity "${holder.name}" already has this name; merge the two entities instead`, {
      entityId: holder.id,
    });
  const renamed = await deps.graph.rename(scope, entity.id, name, key, deps.clock.now().toISOString());
  if (!renamed) throw new DomainError('NOT_FOUND', 'Entity not found');
  return { entity: toEntityView(renamed) };
}

export async function mergeEntities(deps: GraphDeps, actor: Actor, knowledgeBaseId: string, entityId: string, mergeEntityIds: string[]) {
  const scope = await graphScope(deps, actor, knowledgeBaseId, 'edit');
  const canonical = await entityOf(deps, scope, entityId);
  const ids = [...new Set(mergeEntityIds)].filter((id) => id !== canonical.id);
  if (ids.length === 0) throw new DomainError('VALIDATION', 'mergeEntityIds must name at least one other entity');
  const found = await deps.graph.getEntities(scope, ids);
  if (found.length !== ids.length) throw new DomainError('NOT_FOUND', 'Entity not found');
  const mergedCount = await deps.graph.merge(scope, canonical.id, ids, deps.clock.now().toISOString());
  return { message: `Merged ${mergedCount} entities into ${canonical.name}`, canonicalEntityId: canonical.id, mergedCount };
}

export async function deleteEntity(deps: GraphDeps, actor: Actor, knowledgeBaseId: string, entityId: string) {
  const scope = await graphScope(deps, actor, knowledgeBaseId, 'edit');
  const entity = await entityOf(deps, scope, entityId);
  await deps.graph.deleteEntities(scope, [entity.id]);
}

export async function graphStats(deps: GraphDeps, actor: Actor, knowledgeBaseId: string) {
  const scope = await graphScope(deps, actor, knowledgeBaseId, 'read');
  return { stats: await deps.graph.stats(scope) };
}

export async function getPinnedEntities(deps: GraphDeps, actor: Actor, knowledgeBaseId: string) {
  const scope = await graphScope(deps, actor, knowledgeBaseId, 'read');
  return { entities: await deps.graph.getPinned(scope) };
}

/**
 * Replaces the pinned list: `{entities: [{name, type, aliases[]}]}`. Names are cleaned, types normalised,
 * duplicates (same folded name) rejected. Pinned entities seed the next extractions.
 */
export async function setPinnedEntities(deps: GraphDeps, actor: Actor, knowledgeBaseId: string, input: { entities: PinnedEntity[] }) {
  const scope = await graphScope(deps, actor, knowledgeBaseId, 'edit');
  if (input.entities.length > MAX_PINNED) throw new DomainError('VALIDATION', `At most ${MAX_PINNED} pinned entities`);
  const seen = new Set<string>();
  const entities: PinnedEntity[] = [];
  for (const e of input.entities) {
    const name = cleanName(e.name);
    const key = foldName(name);
    if (!key) throw new DomainError('VALIDATION', `Pinned entity name "${e.name}" must contain letters or digits`);
    if (seen.has(key)) throw new DomainError('VALIDATION', `Pinned entity "${name}" is listed twice`);
    seen.add(key);
    const aliases = [...new Set((e.aliases ?? []).map(cleanName).filter((a) => foldName(a) && a !== name))];
    entities.push({ name, type: normalizeType(e.type ?? 'concept'), aliases });
  }
  await deps.graph.setPinned(scope, entities, deps.clock.now().toISOString());
  return { entities };
}
