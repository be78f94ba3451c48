/**
 * The multi-statement writes of the Postgres graph store, each run inside the caller's transaction:
 * replacing one document's contribution, and merging entities.
 */
import { randomUUID } from 'node:crypto';

import type { Knex } from 'knex';

import type { DocumentGraph, GraphScope } from '../../core/ports/graph-store';

const BATCH = 1000;

async function insertBatches(trx: Knex.Transaction, table: string, rows: Record<string, unknown>[], tail = '') {
  for (let i = 0; i < rows.length; i += BATCH) {
    const q = trx(table).insert(rows.slice(i, i + BATCH));
    await (tail ? trx.raw(`${q.toString()} ${tail}`) : q);
  }
}

/** Removes the mentions and relationships of a document, then the entities nothing mentions any more. */
async function clearDocument(trx: Knex.Transaction, scope: GraphScope & { documentId: string }): Promise<string[]> {
  const touched = await trx('graph_mentions')
    .where({ knowledge_base_id: scope.knowledgeBaseId, document_id: scope.documentId })
    .delete()
    .returning('entity_id');
  await trx('graph_relationships')
    .where({ organization_id: scope.organizationId, knowledge_base_id: scope.knowledgeBaseId, document_id: scope.documentId })
    .delete();
  return [...new Set(touched.map((r: { entity_id: string }) => r.entity_id))];
}

async function dropUnmentioned(trx: Knex.Transaction, ids: string[]) {
  if (ids.length === 0) return;
  await trx.raw(
    `DELETE FROM graph_entities e WHERE e.id = ANY(?::uuid[])
       AND NOT EXISTS (SELECT 1 FROM graph_mentions m WHERE m.entity_id = e.id)`,
    [ids],
  );
}

/** Entity ids of the extracted entities: existing ones found by any key, new ones inserted. */
async function resolveEntities(
  trx: Knex.Transaction,
  scope: GraphScope,
  graph: DocumentGraph,
  now: string,
): Promise<{ byKey: Map<string, string>; ids: string[] }> {
  const allKeys = [...new Set(graph.entities.flatMap((e) => e.keys))];
  const found = allKeys.length
    ? await trx('graph_entity_keys').where({ knowledge_base_id: scope.knowledgeBaseId }).whereIn('key', allKeys).select('key', 'entity_id')
    : [];
  const byKey = new Map<string, string>(found.map((r: { key: string; entity_id: string }) => [r.key, r.entity_id]));
  const existing = new Map<string, { name: string; aliases: Set<string>; confidence: number }>();
  const existingIds = [...new Set(byKey.values())];
  if (existingIds.length) {
    const rows = await trx('graph_entities').whereIn('id', existingIds).select('id', 'name', 'aliases', 'confidence');
    for (const r of rows)
      existing.set(r.id, { name: r.name, aliases: new Set([r.name, ...(r.aliases as string[])]), confidence: Number(r.confidence) });
  }
  const inserts: Record<string, unknown>[] = [];
  const ids: string[] = [];
  const changed = new Set<string>();
  for (const e of graph.entities) {
    let id = e.keys.map((k) => byKey.get(k)).find(Boolean);
    if (!id) {
      id = randomUUID();
      inserts.push({
        id,
        organization_id: scope.organizationId,
        knowledge_base_id: scope.knowledgeBaseId,
        name: e.name,
        type: e.type,
        aliases: JSON.stringify(e.aliases.filter((a) => a !== e.name)),
        confidence: e.confidence,
        created_at: now,
        updated_at: now,
      });
      existing.set(id, { name: e.name, aliases: new Set([e.name, ...e.aliases]), confidence: e.confidence });
    } else {
      const known = existing.get(id)!;
      for (const a of [e.name, ...e.aliases])
        if (!known.aliases.has(a)) {
          known.aliases.add(a);
          changed.add(id);
        }
      if (e.confidence > known.confidence) {
        known.confidence = e.confidence;
        changed.add(id);
      }
    }
    for (const k of e.keys) if (!byKey.has(k)) byKey.set(k, id);
    ids.push(id);
  }
  await insertBatches(trx, 'graph_entities', inserts);
  if (changed.size) {
    // one statement for every entity that gained aliases or confidence
    const values = [...changed].map((id) => {
      const known = existing.get(id)!;
      return { id, aliases: [...known.aliases].filter((a) => a !== known.name), confidence: known.confidence };
    });
    await trx.raw(
      `UPDATE graph_entities e SET aliases = v.aliases, confidence = v.confidence, updated_at = ?
       FROM jsonb_to_recordset(?::jsonb) AS v(id uuid, aliases jsonb, confidence float8) WHERE e.id = v.id`,
      [now, JSON.stringify(values)],
    );
  }
  const keyRows = [...byKey.entries()].map(([key, entity_id]) => ({ knowledge_base_id: scope.knowledgeBaseId, key, entity_id }));
  await insertBatches(trx, 'graph_entity_keys', keyRows, 'ON CONFLICT (knowledge_base_id, key) DO NOTHING');
  return { byKey, ids };
}

export async function replaceDocumentGraph(
  trx: Knex.Transaction,
  scope: GraphScope & { documentId: string },
  graph: DocumentGraph,
  now: string,
): Promise<{ entities: number; relationships: number }> {
  const touched = await clearDocument(trx, scope);
  const { byKey, ids } = await resolveEntities(trx, scope, graph, now);
  const mentions = new Map<string, Record<string, unknown>>();
  graph.entities.forEach((e, i) => {
    for (const m of e.mentions) {
      const k = `${ids[i]}:${m.chunkIndex}`;
      const row = mentions.get(k);
      if (row) row.count = (row.count as number) + m.count;
      else
        mentions.set(k, {
          entity_id: ids[i],
          knowledge_base_id: scope.knowledgeBaseId,
          document_id: scope.documentId,
          chunk_index: m.chunkIndex,
          count: m.count,
        });
    }
  });
  await insertBatches(trx, 'graph_mentions', [...mentions.values()]);
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
      organization_id: scope.organizationId,
      knowledge_base_id: scope.knowledgeBaseId,
      source_entity_id: s,
      target_entity_id: t,
      type: r.type,
      weight: Math.max(0, Math.min(1, r.weight)),
      document_id: scope.documentId,
      chunk_index: r.chunkIndex,
      evidence: r.evidence?.slice(0, 1000) ?? null,
      created_at: now,
    });
  }
  await insertBatches(trx, 'graph_relationships', [...rels.values()]);
  await dropUnmentioned(trx, touched);
  return { entities: new Set(ids).size, relationships: rels.size };
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
