/**
 * The multi-statement writes of the Neo4j graph store, each inside the caller's write transaction: replacing
 * one document's contribution and merging entities. Entity resolution follows the Postgres adapter: keys
 * found in the knowledge base resolve to their entity, new names create one, aliases and confidence grow.
 */
import { randomUUID } from 'node:crypto';

import { type KeyedEntity, resolveEntities } from '../../core/graph/entity-resolution';
import type { DocumentGraph, GraphScope } from '../../core/ports/graph-store';
import type { CypherTransaction } from './neo4j.cypher-runner';
import { integer, relationshipOf, toNumber } from './neo4j.records';
import { CYPHER } from './neo4j.statements';

type Tx = CypherTransaction;
const BATCH = 1000;

const tenant = (scope: GraphScope) => ({ organizationId: scope.organizationId, knowledgeBaseId: scope.knowledgeBaseId });

async function inBatches(tx: Tx, cypher: string, params: Record<string, unknown>, rows: unknown[]) {
  for (let i = 0; i < rows.length; i += BATCH) await tx.run(cypher, { ...params, rows: rows.slice(i, i + BATCH) });
}

/** Entity ids of the extracted entities, creating new ones and widening the aliases and confidence of known ones. */
async function resolveDocumentEntities(tx: Tx, scope: GraphScope, graph: DocumentGraph, now: string) {
  const allKeys = [...new Set(graph.entities.flatMap((e) => e.keys))];
  const records = allKeys.length ? (await tx.run(CYPHER.resolveKeys, { ...tenant(scope), keys: allKeys })).records : [];
  const found: KeyedEntity[] = records.map((r) => ({
    key: r.get('key') as string,
    id: r.get('id') as string,
    name: r.get('name') as string,
    aliases: (r.get('aliases') as string[] | null) ?? [],
    confidence: toNumber(r.get('confidence')),
  }));
  const { byKey, ids, inserts, changed } = resolveEntities(graph.entities, found, randomUUID);
  await inBatches(tx, CYPHER.createEntities, { ...tenant(scope), now }, inserts);
  await inBatches(
    tx,
    CYPHER.updateEntities,
    { ...tenant(scope), now },
    changed.map(({ id, aliases, confidence }) => ({ id, aliases, confidence })),
  );
  const keyRows = [...byKey.entries()].map(([key, entityId]) => ({ key, entityId }));
  await inBatches(tx, CYPHER.addKeys, tenant(scope), keyRows);
  return { byKey, ids };
}

export async function replaceDocumentGraph(
  tx: Tx,
  scope: GraphScope & { documentId: string },
  graph: DocumentGraph,
  now: string,
): Promise<{ entities: number; relationships: number }> {
  const doc = { ...tenant(scope), documentId: scope.documentId };
  const cleared = await tx.run(CYPHER.clearMentions, doc);
  const touched = (cleared.records[0]?.get('touched') as string[] | undefined) ?? [];
  await tx.run(CYPHER.clearRelationships, doc);
  const { byKey, ids } = await resolveDocumentEntities(tx, scope, graph, now);

  const mentions = new Map<string, { entityId: string; chunkIndex: number; count: number }>();
  graph.entities.forEach((e, i) => {
    for (const m of e.mentions) {
      const k = `${ids[i]}:${m.chunkIndex}`;
      const row = mentions.get(k);
      if (row) row.count += m.count;
      else mentions.set(k, { entityId: ids[i], chunkIndex: m.chunkIndex, count: m.count });
    }
  });
  const mentionRows = [...mentions.values()].map((m) => ({ ...m, chunkIndex: integer(m.chunkIndex), count: integer(m.count) }));
  await inBatches(tx, CYPHER.createMentions, doc, mentionRows);

  const rels = new Map<string, Record<string, unknown>>();
  for (const r of graph.relationships) {
    const s = byKey.get(r.sourceKey);
    const t = byKey.get(r.targetKey);
    if (!s || !t || s === t) continue;
    const k = `${s}:${t}:${r.type}`;
    const seen = rels.get(k);
    if (seen && (seen.weight as number) >= r.weight) continue;
    rels.set(k, {
      id: (seen?.id as string) ?? randomUUID(),
      sourceEntityId: s,
      targetEntityId: t,
      type: r.type,
      weight: Math.max(0, Math.min(1, r.weight)),
      chunkIndex: integer(r.chunkIndex),
      evidence: r.evidence?.slice(0, 1000) ?? null,
    });
  }
  await inBatches(tx, CYPHER.createRelationships, { ...doc, now }, [...rels.values()]);
  if (touched.length) await tx.run(CYPHER.dropUnmentioned, { ...tenant(scope), ids: touched });
  return { entities: new Set(ids).size, relationships: rels.size };
}

/**
 * Folds `mergeIds` into the canonical entity: names and aliases become aliases, keys and mentions move,
 * relationships are re-pointed (self-loops dropped, duplicates folded keeping the higher weight), then the
 * merged entities are deleted. Returns how many were merged.
 */
export async function mergeInto(tx: Tx, scope: GraphScope, canonicalId: string, mergeIds: string[], now: string): Promise<number> {
  const s = tenant(scope);
  const wanted = [canonicalId, ...mergeIds.filter((id) => id !== canonicalId)];
  const rows = (await tx.run(CYPHER.entityNames, { ...s, ids: wanted })).records;
  const canonical = rows.find((r) => r.get('id') === canonicalId);
  const merged = rows.filter((r) => r.get('id') !== canonicalId);
  if (!canonical || merged.length === 0) return 0;
  const ids = merged.map((m) => m.get('id') as string);
  const aliases = new Set<string>((canonical.get('aliases') as string[] | null) ?? []);
  for (const m of merged) for (const a of [m.get('name') as string, ...((m.get('aliases') as string[] | null) ?? [])]) aliases.add(a);
  aliases.delete(canonical.get('name') as string);

  await tx.run(CYPHER.moveKeys, { ...s, ids, canonicalId });
  await tx.run(CYPHER.moveMentions, { ...s, ids, canonicalId });
  await tx.run(CYPHER.foldMentions, { ...s, canonicalId });

  const moving = (await tx.run(CYPHER.relationshipsOfAll, { ...s, ids })).records.map(relationshipOf);
  const mergedSet = new Set(ids);
  const repointed = new Map<string, Record<string, unknown>>();
  for (const r of moving.sort((a, b) => b.weight - a.weight)) {
    const source = mergedSet.has(r.sourceEntityId) ? canonicalId : r.sourceEntityId;
    const target = mergedSet.has(r.targetEntityId) ? canonicalId : r.targetEntityId;
    if (source === target) continue;
    const key = `${source}:${target}:${r.type}:${r.documentId}`;
    if (repointed.has(key)) continue;
    repointed.set(key, {
      id: r.id,
      sourceEntityId: source,
      targetEntityId: target,
      type: r.type,
      weight: r.weight,
      documentId: r.documentId,
      chunkIndex: integer(r.chunkIndex),
      evidence: r.evidence,
      createdAt: r.createdAt,
    });
  }
  if (moving.length) await tx.run(CYPHER.deleteRelationships, { ...s, ids: moving.map((r) => r.id) });
  await inBatches(tx, CYPHER.upsertRelationships, s, [...repointed.values()]);
  await tx.run(CYPHER.deleteMerged, { ...s, ids });
  const confidence = Math.max(toNumber(canonical.get('confidence')), ...merged.map((m) => toNumber(m.get('confidence'))));
  await tx.run(CYPHER.updateCanonical, { ...s, id: canonicalId, aliases: [...aliases], confidence, now });
  return merged.length;
}
