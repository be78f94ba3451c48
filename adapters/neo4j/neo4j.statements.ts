/**
 * Every Cypher statement of the Neo4j graph store, as constant text: values only ever travel as parameters
 * (`$name`), never inside the text. The data model, one database per deployment:
 *
 *   (:Entity {organizationId, knowledgeBaseId, id, name, type, aliases[], description, confidence, hidden, createdAt, updatedAt})
 *   (:Entity)-[:RELATED {organizationId, knowledgeBaseId, id, type, weight, documentId, chunkIndex, evidence, createdAt}]->(:Entity)
 *   (:EntityKey {organizationId, knowledgeBaseId, key, entityId})        folded lookup names, unique per knowledge base
 *   (:Mention {organizationId, knowledgeBaseId, documentId, chunkIndex, entityId, count})   chunk-level provenance
 *   (:PinnedEntities {organizationId, knowledgeBaseId, entities (JSON), updatedAt})
 *   (:GraphSuggestion {organizationId, knowledgeBaseId, id, type, status, entityIds[], payload (JSON), ...})
 *
 * The relationship type is a property (`type`) of one RELATED type, because Cypher cannot take a relationship
 * type as a parameter. Every node and relationship pattern carries the tenant properties, so no statement
 * can reach another organization's or knowledge base's data (the contract tests check this on every statement).
 */

/** The tenant properties every pattern carries. */
const T = 'organizationId: $organizationId, knowledgeBaseId: $knowledgeBaseId';

/** Indexes and constraints, created at start (idempotent). */
export const SCHEMA = [
  'CREATE CONSTRAINT graph_entity_id IF NOT EXISTS FOR (e:Entity) REQUIRE e.id IS UNIQUE',
  'CREATE INDEX graph_entity_scope IF NOT EXISTS FOR (e:Entity) ON (e.organizationId, e.knowledgeBaseId)',
  'CREATE CONSTRAINT graph_entity_key IF NOT EXISTS FOR (k:EntityKey) REQUIRE (k.knowledgeBaseId, k.key) IS UNIQUE',
  'CREATE INDEX graph_entity_key_scope IF NOT EXISTS FOR (k:EntityKey) ON (k.organizationId, k.knowledgeBaseId)',
  'CREATE INDEX graph_entity_key_entity IF NOT EXISTS FOR (k:EntityKey) ON (k.entityId)',
  'CREATE INDEX graph_mention_scope IF NOT EXISTS FOR (m:Mention) ON (m.organizationId, m.knowledgeBaseId)',
  'CREATE INDEX graph_mention_entity IF NOT EXISTS FOR (m:Mention) ON (m.entityId)',
  'CREATE INDEX graph_mention_document IF NOT EXISTS FOR (m:Mention) ON (m.knowledgeBaseId, m.documentId)',
  'CREATE INDEX graph_related_scope IF NOT EXISTS FOR ()-[r:RELATED]-() ON (r.organizationId, r.knowledgeBaseId)',
  'CREATE INDEX graph_related_document IF NOT EXISTS FOR ()-[r:RELATED]-() ON (r.knowledgeBaseId, r.documentId)',
  'CREATE INDEX graph_related_id IF NOT EXISTS FOR ()-[r:RELATED]-() ON (r.id)',
  'CREATE CONSTRAINT graph_suggestion_id IF NOT EXISTS FOR (s:GraphSuggestion) REQUIRE s.id IS UNIQUE',
  'CREATE INDEX graph_suggestion_scope IF NOT EXISTS FOR (s:GraphSuggestion) ON (s.organizationId, s.knowledgeBaseId, s.status)',
  'CREATE CONSTRAINT graph_pinned_scope IF NOT EXISTS FOR (p:PinnedEntities) REQUIRE (p.organizationId, p.knowledgeBaseId) IS UNIQUE',
] as const;

/** Folds the mentions of each entity `e` into `mentionCount` and `documentIds` (derived on read, as in Postgres). */
const WITH_MENTIONS = `OPTIONAL MATCH (m:Mention {${T}, entityId: e.id})
WITH e, sum(m.count) AS mentionCount, collect(DISTINCT m.documentId) AS documentIds`;

const ENTITY_FILTER = `MATCH (e:Entity {${T}})
WHERE NOT coalesce(e.hidden, false)
  AND ($type IS NULL OR e.type = $type)
  AND ($search IS NULL OR toLower(e.name) CONTAINS $search OR any(a IN e.aliases WHERE toLower(a) CONTAINS $search))
  AND ($documentId IS NULL OR EXISTS { MATCH (d:Mention {${T}, entityId: e.id, documentId: $documentId}) })`;

const RELATIONSHIP_ROW = 'r, s.id AS sourceEntityId, t.id AS targetEntityId';

const SUGGESTION_FILTER = `MATCH (s:GraphSuggestion {${T}})
WHERE ($statuses IS NULL OR s.status IN $statuses) AND ($type IS NULL OR s.type = $type)`;

/** Removes nodes of `e` first (keys, mentions), then the entity with its relationships. */
const DELETE_ENTITY = `OPTIONAL MATCH (k:EntityKey {${T}, entityId: e.id})
WITH e, collect(k) AS keys
OPTIONAL MATCH (m:Mention {${T}, entityId: e.id})
WITH e, keys, collect(m) AS mentions
FOREACH (x IN keys + mentions | DELETE x)
DETACH DELETE e`;

export const CYPHER = {
  // reads
  countEntities: `${ENTITY_FILTER}\nRETURN count(e) AS total`,
  pageEntities: `${ENTITY_FILTER}
${WITH_MENTIONS}
ORDER BY mentionCount DESC, e.name ASC, e.id ASC SKIP $offset LIMIT $limit
RETURN e, mentionCount, documentIds`,
  entitiesById: `MATCH (e:Entity {${T}}) WHERE e.id IN $ids
${WITH_MENTIONS}
RETURN e, mentionCount, documentIds`,
  // the one statement over several knowledge bases of one organization
  entitiesByKeys: `MATCH (k:EntityKey {organizationId: $organizationId}) WHERE k.knowledgeBaseId IN $knowledgeBaseIds AND k.key IN $keys
MATCH (e:Entity {organizationId: $organizationId, knowledgeBaseId: k.knowledgeBaseId, id: k.entityId})
WHERE NOT coalesce(e.hidden, false)
WITH DISTINCT e
OPTIONAL MATCH (m:Mention {organizationId: $organizationId, knowledgeBaseId: e.knowledgeBaseId, entityId: e.id})
WITH e, sum(m.count) AS mentionCount, collect(DISTINCT m.documentId) AS documentIds
RETURN e, mentionCount, documentIds`,
  relationshipsTouching: `MATCH (s:Entity {${T}})-[r:RELATED {${T}}]->(t:Entity {${T}}) WHERE s.id IN $ids OR t.id IN $ids
RETURN ${RELATIONSHIP_ROW} ORDER BY r.weight DESC, r.id ASC LIMIT $limit`,
  relationshipsWithin: `MATCH (s:Entity {${T}})-[r:RELATED {${T}}]->(t:Entity {${T}}) WHERE s.id IN $ids AND t.id IN $ids
RETURN ${RELATIONSHIP_ROW} ORDER BY r.weight DESC, r.id ASC LIMIT $limit`,
  existingIds: `MATCH (e:Entity {${T}}) WHERE e.id IN $ids RETURN e.id AS id`,
  /** One hop of the breadth-first walk, both directions. */
  neighbourIds: `MATCH (a:Entity {${T}})-[r:RELATED {${T}}]-(b:Entity {${T}}) WHERE a.id IN $frontier
RETURN DISTINCT b.id AS id`,
  entitiesByType: `MATCH (e:Entity {${T}}) WHERE NOT coalesce(e.hidden, false) RETURN e.type AS type, count(e) AS n`,
  countRelationships: `MATCH ()-[r:RELATED {${T}}]->() RETURN count(r) AS n`,
  orphanIds: `MATCH (e:Entity {${T}})
WHERE NOT coalesce(e.hidden, false) AND NOT EXISTS { MATCH (e)-[x:RELATED {${T}}]-() }
RETURN e.id AS id ORDER BY id`,
  getPinned: `MATCH (p:PinnedEntities {${T}}) RETURN p.entities AS entities`,
  countSuggestions: `${SUGGESTION_FILTER}\nRETURN count(s) AS total`,
  pageSuggestions: `${SUGGESTION_FILTER}
RETURN s ORDER BY s.confidence DESC, s.createdAt DESC, s.id ASC SKIP $offset LIMIT $limit`,
  suggestionsById: `MATCH (s:GraphSuggestion {${T}}) WHERE s.id IN $ids RETURN s`,
  suggestionCounts: `MATCH (s:GraphSuggestion {${T}}) RETURN s.type AS type, s.status AS status, count(s) AS count`,

  // replacing one document's contribution (one transaction)
  clearMentions: `MATCH (m:Mention {${T}, documentId: $documentId})
WITH m, m.entityId AS entityId DELETE m
RETURN collect(DISTINCT entityId) AS touched`,
  clearRelationships: `MATCH ()-[r:RELATED {${T}, documentId: $documentId}]->() DELETE r`,
  resolveKeys: `MATCH (k:EntityKey {${T}}) WHERE k.key IN $keys
MATCH (e:Entity {${T}, id: k.entityId})
RETURN k.key AS key, e.id AS id, e.name AS name, e.aliases AS aliases, e.confidence AS confidence`,
  createEntities: `UNWIND $rows AS row
CREATE (e:Entity {${T}, id: row.id, name: row.name, type: row.type, aliases: row.aliases, confidence: row.confidence,
  hidden: false, createdAt: $now, updatedAt: $now})`,
  updateEntities: `UNWIND $rows AS row
MATCH (e:Entity {${T}, id: row.id})
SET e.aliases = row.aliases, e.confidence = row.confidence, e.updatedAt = $now`,
  // an existing key keeps its entity (the first one wins, as ON CONFLICT DO NOTHING in Postgres)
  addKeys: `UNWIND $rows AS row
MERGE (k:EntityKey {${T}, key: row.key})
ON CREATE SET k.entityId = row.entityId`,
  createMentions: `UNWIND $rows AS row
CREATE (m:Mention {${T}, documentId: $documentId, entityId: row.entityId, chunkIndex: row.chunkIndex, count: row.count})`,
  createRelationships: `UNWIND $rows AS row
MATCH (s:Entity {${T}, id: row.sourceEntityId})
MATCH (t:Entity {${T}, id: row.targetEntityId})
CREATE (s)-[r:RELATED {${T}, id: row.id, type: row.type, weight: row.weight, documentId: $documentId,
  chunkIndex: row.chunkIndex, evidence: row.evidence, createdAt: $now}]->(t)`,
  dropUnmentioned: `MATCH (e:Entity {${T}}) WHERE e.id IN $ids AND NOT EXISTS { MATCH (n:Mention {${T}, entityId: e.id}) }
${DELETE_ENTITY}`,

  // curation
  deleteEntities: `MATCH (e:Entity {${T}}) WHERE e.id IN $ids
${DELETE_ENTITY}
RETURN count(e) AS n`,
  entityNames: `MATCH (e:Entity {${T}}) WHERE e.id IN $ids
RETURN e.id AS id, e.name AS name, e.aliases AS aliases, e.confidence AS confidence`,
  renameEntity: `MATCH (e:Entity {${T}, id: $id}) SET e.name = $name, e.aliases = $aliases, e.updatedAt = $now`,
  pointKey: `MERGE (k:EntityKey {${T}, key: $key}) SET k.entityId = $id`,
  moveKeys: `MATCH (k:EntityKey {${T}}) WHERE k.entityId IN $ids SET k.entityId = $canonicalId`,
  moveMentions: `MATCH (m:Mention {${T}}) WHERE m.entityId IN $ids SET m.entityId = $canonicalId`,
  /** After a merge: one mention per (entity, document, chunk), counts summed. */
  foldMentions: `MATCH (m:Mention {${T}, entityId: $canonicalId})
WITH m.documentId AS documentId, m.chunkIndex AS chunkIndex, collect(m) AS ms
WHERE size(ms) > 1
WITH head(ms) AS keep, tail(ms) AS rest, reduce(n = 0, x IN ms | n + x.count) AS total
SET keep.count = total
FOREACH (x IN rest | DELETE x)`,
  relationshipsOfAll: `MATCH (s:Entity {${T}})-[r:RELATED {${T}}]->(t:Entity {${T}}) WHERE s.id IN $ids OR t.id IN $ids
RETURN ${RELATIONSHIP_ROW}`,
  deleteRelationships: `MATCH ()-[r:RELATED {${T}}]->() WHERE r.id IN $ids DELETE r`,
  // re-pointed relationships: one per (source, target, type, document), the higher weight kept
  upsertRelationships: `UNWIND $rows AS row
MATCH (s:Entity {${T}, id: row.sourceEntityId})
MATCH (t:Entity {${T}, id: row.targetEntityId})
MERGE (s)-[r:RELATED {${T}, type: row.type, documentId: row.documentId}]->(t)
ON CREATE SET r.id = row.id, r.weight = row.weight, r.chunkIndex = row.chunkIndex, r.evidence = row.evidence, r.createdAt = row.createdAt
ON MATCH SET r.weight = CASE WHEN row.weight > r.weight THEN row.weight ELSE r.weight END`,
  deleteMerged: `MATCH (e:Entity {${T}}) WHERE e.id IN $ids DETACH DELETE e`,
  updateCanonical: `MATCH (e:Entity {${T}, id: $id}) SET e.aliases = $aliases, e.confidence = $confidence, e.updatedAt = $now`,
  setPinned: `MERGE (p:PinnedEntities {${T}}) SET p.entities = $entities, p.updatedAt = $now`,

  // suggestions
  deleteSuggestionsWithStatus: `MATCH (s:GraphSuggestion {${T}, status: $status}) DELETE s`,
  createSuggestions: `UNWIND $rows AS row
CREATE (s:GraphSuggestion {${T}, id: row.id, type: row.type, status: row.status, entityIds: row.entityIds,
  payload: row.payload, reason: row.reason, confidence: row.confidence, resolvedBy: row.resolvedBy,
  createdAt: row.createdAt, updatedAt: row.updatedAt})`,
  setSuggestionStatus: `MATCH (s:GraphSuggestion {${T}, id: $id}) WHERE s.status IN $from
SET s.status = $to, s.resolvedBy = $resolvedBy, s.updatedAt = $now
RETURN s`,

  // a whole knowledge base
  deleteKbSuggestions: `MATCH (s:GraphSuggestion {${T}}) DELETE s`,
  deleteKbPinned: `MATCH (p:PinnedEntities {${T}}) DELETE p`,
  deleteKbMentions: `MATCH (m:Mention {${T}}) DELETE m`,
  deleteKbKeys: `MATCH (k:EntityKey {${T}}) DELETE k`,
  deleteKbEntities: `MATCH (e:Entity {${T}}) DETACH DELETE e`,
} as const;

export type StatementName = keyof typeof CYPHER;
