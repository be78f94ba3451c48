/**
 * The multi-statement writes of the Postgres graph store, each run inside the caller's transaction:
 * replacing one document's contribution, and merging entities.
 */
import { randomUUID } from 'node:crypto';

import type { Knex } from 'knex';

import { type EntityResolution, type KeyedEntity, resolveEntities } from '../../core/graph/entity-resolution';
import type { DocumentGraph, GraphScope } from '../../core/ports/graph-store';

/** Removes the mentions and relationships of a document; returns the entities it mentioned. */
async function clearDocument(trx: Knex.Transaction, scope: GraphScope & { documentId: string }): Promise<string[]> {
  const r = await trx.raw(
    `WITH m AS (DELETE FROM graph_mentions WHERE knowledge_base_id = ? AND document_id = ? RETURNING entity_id),
          r AS (DELETE FROM graph_relationships WHERE organization_id = ? AND knowledge_base_id = ? AND document_id = ?)
     SELECT DISTINCT entity_id FROM m`,
    [scope.knowledgeBaseId, scope.documentId, scope.organizationId, scope.knowledgeBaseId, scope.documentId],
  );
  return (r.rows as { entity_id: string }[]).map((x) => x.entity_id);
}

/** Entity ids of the extracted entities: existing ones found by any key (one query), new ones to insert. */
async function resolveDocumentEntities(trx: Knex.Transaction, scope: GraphScope, graph: DocumentGraph): Promise<EntityResolution> {
  const allKeys = [...new Set(graph.entities.flatMap((e) => e.keys))];
  // primary-key probes per key (LATERAL ... LIMIT 1): PGlite has no statistics to plan a join by
  const found = allKeys.length
    ? ((
        await trx.raw(
          `SELECT q.key, e.id, e.name, e.aliases, e.confidence FROM unnest(?::text[]) AS q(key)
           CROSS JOIN LATERAL (SELECT entity_id FROM graph_entity_keys WHERE knowledge_base_id = ? AND key = q.key LIMIT 1) k
           CROSS JOIN LATERAL (SELECT id, name, aliases, confidence FROM graph_entities WHERE id = k.entity_id LIMIT 1) e`,
          [allKeys, scope.knowledgeBaseId],
        )
      ).rows as KeyedEntity[])
    : [];
  return resolveEntities(graph.entities, found, randomUUID);
}

export async function replaceDocumentGraph(
  trx: Knex.Transaction,
  scope: GraphScope & { documentId: string },
  graph: DocumentGraph,
  now: string,
): Promise<{ entities: number; relationships: number }> {
  const touched = await clearDocument(trx, scope);
  const { byKey, ids, inserts, changed } = await resolveDocumentEntities(trx, scope, graph);
  const mentions = new Map<string, { entityId: string; chunkIndex: number; count: number }>();
  graph.entities.forEach((e, i) => {
    for (const m of e.mentions) {
      const k = `${ids[i]}:${m.chunkIndex}`;
      const row = mentions.get(k);
      if (row) row.count += m.count;
      else mentions.set(k, { entityId: ids[i], chunkIndex: m.chunkIndex, count: m.count });
    }
  });
  const rels = new Map<
    string,
    { id: string; s: string; t: string; type: string; weight: number; chunkIndex: number; evidence: string | null }
  >();
  for (const r of graph.relationships) {
    const s = byKey.get(r.sourceKey);
    const t = byKey.get(r.targetKey);
    if (!s || !t || s === t) continue;
    const k = `${s}:${t}:${r.type}`;
    const seen = rels.get(k);
    if (seen && seen.weight >= r.weight) continue;
    rels.set(k, {
      id: seen?.id ?? randomUUID(),
      s,
      t,
      type: r.type,
      weight: Math.max(0, Math.min(1, r.weight)),
      chunkIndex: r.chunkIndex,
      evidence: r.evidence?.slice(0, 1000) ?? null,
    });
  }
  const mentioned = new Set(ids);
  const keys = [...byKey.entries()];
  const m = [...mentions.values()];
  const rs = [...rels.values()];
  // One statement writes everything, each table from arrays (unnest): foreign keys are checked at its end,
  // so keys, mentions and relationships may name entities it inserts. Entities the document mentioned before
  // and nothing mentions now go; the ones it mentions again are not candidates (this statement's own
  // mentions are invisible to its NOT EXISTS).
  await trx.raw(
    `WITH new_entities AS (
       INSERT INTO graph_entities (id, organization_id, knowledge_base_id, name, type, aliases, confidence, created_at, updated_at)
       SELECT id, ?, ?, name, type, aliases::jsonb, confidence, ?, ?
       FROM unnest(?::uuid[], ?::text[], ?::text[], ?::text[], ?::float8[]) AS t(id, name, type, aliases, confidence)),
     grown AS (
       UPDATE graph_entities e SET aliases = v.aliases::jsonb, confidence = v.confidence, updated_at = ?
       FROM unnest(?::uuid[], ?::text[], ?::float8[]) AS v(id, aliases, confidence) WHERE e.id = v.id),
     new_keys AS (
       INSERT INTO graph_entity_keys (knowledge_base_id, key, entity_id)
       SELECT ?, key, entity_id FROM unnest(?::text[], ?::uuid[]) AS t(key, entity_id)
       ON CONFLICT (knowledge_base_id, key) DO NOTHING),
     new_mentions AS (
       INSERT INTO graph_mentions (entity_id, knowledge_base_id, document_id, chunk_index, count)
       SELECT entity_id, ?, ?, chunk_index, count FROM unnest(?::uuid[], ?::int[], ?::int[]) AS t(entity_id, chunk_index, count)),
     new_relationships AS (
       INSERT INTO graph_relationships (id, organization_id, knowledge_base_id, source_entity_id, target_entity_id, type, weight,
                                        document_id, chunk_index, evidence, created_at)
       SELECT id, ?, ?, s, t, type, weight, ?, chunk_index, evidence, ?
       FROM unnest(?::uuid[], ?::uuid[], ?::uuid[], ?::text[], ?::float8[], ?::int[], ?::text[])
         AS x(id, s, t, type, weight, chunk_index, evidence)),
     unmentioned AS (
       DELETE FROM graph_entities e WHERE e.id = ANY(?::uuid[]) AND NOT EXISTS (SELECT 1 FROM graph_mentions m WHERE m.entity_id = e.id))
     SELECT 1`,
    [
      scope.organizationId,
      scope.knowledgeBaseId,
      now,
      now,
      inserts.map((e) => e.id),
      inserts.map((e) => e.name),
      inserts.map((e) => e.type),
      inserts.map((e) => JSON.stringify(e.aliases)),
      inserts.map((e) => e.confidence),
      now,
      changed.map((e) => e.id),
      changed.map((e) => JSON.stringify(e.aliases)),
      changed.map((e) => e.confidence),
      scope.knowledgeBaseId,
      keys.map(([k]) => k),
      keys.map(([, id]) => id),
      scope.knowledgeBaseId,
      scope.documentId,
      m.map((x) => x.entityId),
      m.map((x) => x.chunkIndex),
      m.map((x) => x.count),
      scope.organizationId,
      scope.knowledgeBaseId,
      scope.documentId,
      now,
      rs.map((r) => r.id),
      rs.map((r) => r.s),
      rs.map((r) => r.t),
      rs.map((r) => r.type),
      rs.map((r) => r.weight),
      rs.map((r) => r.chunkIndex),
      rs.map((r) => r.evidence) as string[], // nulls are NULL elements of the text[]
      touched.filter((id) => !mentioned.has(id)),
    ],
  );
  return { entities: mentioned.size, relationships: rels.size };
}

/**
 * Folds `mergeIds` into the canonical entity: names and aliases become aliases, keys and mentions move,
 * relationships are re-pointed (self-loops dropped, duplicates folded keeping the higher weight), then the
 * merged entities are deleted. Returns how many were merged.
 */
export async function mergeInto(trx: Knex.Transaction, scope: GraphScope, canonicalId: string, mergeIds: string[], now: string) {
  const scoped = () => trx('graph_entities').where({ organization_id: scope.organizationId, knowledge_base_id: scope.knowledgeBaseId });
  const canonical = await scoped().where({ id: canonicalId }).first();
  if (!canonical) return 0;
  const merged = await scoped()
    .whereIn(
      'id',
      mergeIds.filter((id) => id !== canonicalId),
    )
    .select('id', 'name', 'aliases', 'confidence');
  if (merged.length === 0) return 0;
  const ids = merged.map((m) => m.id as string);
  const aliases = new Set<string>(canonical.aliases as string[]);
  for (const m of merged) for (const a of [m.name as string, ...(m.aliases as string[])]) aliases.add(a);
  aliases.delete(canonical.name);
  await trx('graph_entity_keys').whereIn('entity_id', ids).update({ entity_id: canonicalId });
  await trx.raw(
    `INSERT INTO graph_mentions (entity_id, knowledge_base_id, document_id, chunk_index, count)
     SELECT ?, knowledge_base_id, document_id, chunk_index, SUM(count) FROM graph_mentions WHERE entity_id = ANY(?::uuid[])
     GROUP BY knowledge_base_id, document_id, chunk_index
     ON CONFLICT (entity_id, document_id, chunk_index) DO UPDATE SET count = graph_mentions.count + excluded.count`,
    [canonicalId, ids],
  );
  await trx.raw(
    `INSERT INTO graph_relationships (id, organization_id, knowledge_base_id, source_entity_id, target_entity_id, type, weight,
                                      document_id, chunk_index, evidence, created_at)
     SELECT DISTINCT ON (s, t, type, document_id) gen_random_uuid(), organization_id, knowledge_base_id, s, t, type, weight,
            document_id, chunk_index, evidence, created_at
     FROM (SELECT r.*, CASE WHEN source_entity_id = ANY(?::uuid[]) THEN ?::uuid ELSE source_entity_id END AS s,
                       CASE WHEN target_entity_id = ANY(?::uuid[]) THEN ?::uuid ELSE target_entity_id END AS t
           FROM graph_relationships r
           WHERE source_entity_id = ANY(?::uuid[]) OR target_entity_id = ANY(?::uuid[])) moved
     WHERE s <> t
     ORDER BY s, t, type, document_id, weight DESC
     ON CONFLICT (source_entity_id, target_entity_id, type, document_id)
       DO UPDATE SET weight = GREATEST(graph_relationships.weight, excluded.weight)`,
    [ids, canonicalId, ids, canonicalId, ids, ids],
  );
  await trx('graph_entities').whereIn('id', ids).delete();
  const confidence = Math.max(Number(canonical.confidence), ...merged.map((m) => Number(m.confidence)));
  await trx('graph_entities')
    .where({ id: canonicalId })
    .update({ aliases: JSON.stringify([...aliases]), confidence, updated_at: now });
  return merged.length;
}
