/**
 * The read SQL of the Postgres graph store, shaped for few round trips: on PGlite every statement pays a
 * message hop to the database thread, planning and row decoding, which at 10k entities cost more than the
 * index work itself. An entity's mentionCount and documentIds are aggregated from graph_mentions per row
 * through the (entity_id, document_id, chunk_index) primary key, already in document order (no sort).
 */
import type { Knex } from 'knex';

import type { GraphEntity, GraphRelationship, GraphScope } from '../../core/ports/graph-store';

type Row = Record<string, unknown>;

/** Timestamps arrive as Date from rows and as ISO text with an offset from JSON: both become `...Z`. */
const iso = (v: unknown) => (v instanceof Date ? v : new Date(String(v))).toISOString();

export const toEntity = (r: Row): GraphEntity => ({
  id: r.id as string,
  organizationId: r.organization_id as string,
  knowledgeBaseId: r.knowledge_base_id as string,
  name: r.name as string,
  type: r.type as string,
  aliases: (r.aliases as string[]) ?? [],
  description: (r.description as string | null) ?? null,
  confidence: Number(r.confidence),
  hidden: Boolean(r.hidden),
  mentionCount: Number(r.mention_count ?? 0),
  documentIds: ((r.document_ids as string[]) ?? []).sort(),
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

export const toRelationship = (r: Row): GraphRelationship => ({
  id: r.id as string,
  knowledgeBaseId: r.knowledge_base_id as string,
  sourceEntityId: r.source_entity_id as string,
  targetEntityId: r.target_entity_id as string,
  type: r.type as string,
  weight: Number(r.weight),
  documentId: r.document_id as string,
  chunkIndex: Number(r.chunk_index),
  evidence: (r.evidence as string | null) ?? null,
  createdAt: iso(r.created_at),
});

/**
 * CTEs that read the entities whose ids the query `ids` (one column `id`) lists, as `ents`: the entity's
 * columns plus mention_count and document_ids, aggregated from its mentions in one pass. Lookups are written
 * as LATERAL subqueries with LIMIT/OFFSET so they stay primary-key probes: PGlite runs no autovacuum, so the
 * planner often has no statistics and would otherwise hash-join whole tables.
 */
export const entitiesOf = (ids: string) => `ids AS MATERIALIZED (${ids}),
  counts AS (SELECT ids.id, m.document_id, SUM(m.count) AS c FROM ids CROSS JOIN LATERAL (
    SELECT document_id, count FROM graph_mentions WHERE entity_id = ids.id OFFSET 0) m GROUP BY ids.id, m.document_id),
  mentions AS (SELECT id, SUM(c)::int AS mention_count, array_agg(document_id::text) AS document_ids FROM counts GROUP BY id),
  ents AS (SELECT e.*, COALESCE(m.mention_count, 0) AS mention_count, COALESCE(m.document_ids, '{}') AS document_ids
    FROM ids CROSS JOIN LATERAL (SELECT * FROM graph_entities WHERE id = ids.id LIMIT 1) e LEFT JOIN mentions m ON m.id = ids.id)`;

/** Entities by id, then filtered by `where` (over `ents`). */
export async function entitiesWhere(db: Knex, ids: string, where: string, bindings: Knex.RawBinding[]) {
  const r = await db.raw(`WITH ${entitiesOf(ids)} SELECT * FROM ents WHERE ${where}`, bindings);
  return (r.rows as Row[]).map(toEntity);
}

/** Rows of the walk beyond which traversal stops: breadth-first, so the nearest entities are always in. */
const WALK_ROWS_PER_RESULT = 20;

/**
 * Entities within `depth` hops of the seeds (both directions), nearest first, and the relationships among
 * them: one statement. The recursive walk is consumed lazily through a LIMIT, so a hub cannot make it
 * enumerate its whole 2-hop fan-out. Entities and relationships come back as rows of one shape (`kind` e/r):
 * json_agg would cost more than the whole traversal on PGlite.
 */
export async function neighbourhoodOf(db: Knex, scope: GraphScope, seedIds: string[], depth: number, limit: number) {
  const r = await db.raw(
    `WITH RECURSIVE walk(entity_id, depth) AS (
       SELECT e.id, 0 FROM unnest(?::uuid[]) s(id) CROSS JOIN LATERAL (
         SELECT id, organization_id, knowledge_base_id FROM graph_entities WHERE id = s.id LIMIT 1) e
       WHERE e.organization_id = ? AND e.knowledge_base_id = ?
       UNION
       SELECT n.other, w.depth + 1 FROM walk w CROSS JOIN LATERAL (
         SELECT target_entity_id AS other FROM graph_relationships WHERE source_entity_id = w.entity_id
         UNION ALL
         SELECT source_entity_id FROM graph_relationships WHERE target_entity_id = w.entity_id) n
       WHERE w.depth < ?),
     reached AS (SELECT entity_id, depth FROM walk LIMIT ?),
     near AS MATERIALIZED (SELECT entity_id AS id, min(depth) AS d FROM reached GROUP BY entity_id ORDER BY d, entity_id LIMIT ?),
     ${entitiesOf('SELECT id FROM near')},
     rels AS (SELECT r.* FROM near s CROSS JOIN LATERAL (
                SELECT * FROM graph_relationships WHERE source_entity_id = s.id OFFSET 0) r
              WHERE r.knowledge_base_id = ? AND (r.target_entity_id IN (SELECT id FROM near)) IS TRUE
              ORDER BY r.weight DESC, r.id LIMIT ?)
     SELECT 'e' AS kind, id, organization_id, knowledge_base_id, name, type, aliases, description, confidence, hidden,
            mention_count, document_ids, created_at, updated_at,
            NULL::uuid AS source_entity_id, NULL::uuid AS target_entity_id, NULL::float8 AS weight, NULL::uuid AS document_id,
            NULL::int AS chunk_index, NULL::text AS evidence
     FROM ents
     UNION ALL
     SELECT 'r', id, NULL, knowledge_base_id, NULL, type, NULL, NULL, NULL, NULL, NULL, NULL, created_at, NULL,
            source_entity_id, target_entity_id, weight, document_id, chunk_index, evidence
     FROM rels
     ORDER BY kind, weight DESC, id`,
    [seedIds, scope.organizationId, scope.knowledgeBaseId, depth, limit * WALK_ROWS_PER_RESULT, limit, scope.knowledgeBaseId, limit * 4],
  );
  const rows = r.rows as Row[];
  return {
    entities: rows.filter((x) => x.kind === 'e').map(toEntity),
    relationships: rows.filter((x) => x.kind === 'r').map(toRelationship),
  };
}

/**
 * One page of entities ordered by mention count: the counts of every filtered entity come from one grouped
 * scan of the knowledge base's mentions (not a lookup per entity), the details only for the page.
 */
export async function entityPage(db: Knex, scope: GraphScope, where: string, bindings: Knex.RawBinding[], limit: number, offset: number) {
  const r = await db.raw(
    `WITH totals AS (
       SELECT entity_id, SUM(count) AS n FROM graph_mentions WHERE knowledge_base_id = ? GROUP BY entity_id),
     page AS MATERIALIZED (
       SELECT e.id, COALESCE(t.n, 0) AS n, e.name FROM graph_entities e LEFT JOIN totals t ON t.entity_id = e.id WHERE ${where}
       ORDER BY n DESC, e.name ASC, e.id LIMIT ? OFFSET ?),
     ${entitiesOf('SELECT id FROM page')}
     SELECT ents.* FROM page JOIN ents ON ents.id = page.id ORDER BY page.n DESC, page.name ASC, page.id`,
    [scope.knowledgeBaseId, ...bindings, limit, offset],
  );
  return (r.rows as Row[]).map(toEntity);
}
