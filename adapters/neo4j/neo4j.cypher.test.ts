/**
 * Contract tests of the Neo4j graph store, part 1: the exact Cypher and parameters it sends. Neo4j cannot
 * run here, so these pin what the adapter asks of the server through a recording fake of the driver's
 * session and transaction `run`: every statement is one of the constant texts, every pattern carries the
 * tenant properties, values travel only as parameters (integers as neo4j Integer), writes go to WRITE
 * sessions on the configured database.
 */
import { randomUUID } from 'node:crypto';

import { isInt } from 'neo4j-driver';

import { keysOf } from '../../core/graph/names';
import type { GraphScope } from '../../core/ports/graph-store';
import { Neo4jGraphStore } from './neo4j.graph-store';
import { CYPHER, SCHEMA } from './neo4j.statements';
import { record, type RecordedStatement, RecordingDriver } from './test-fixtures/recording-driver';

const NOW = '2025-01-01T00:00:00.000Z';
const scope: GraphScope = { organizationId: randomUUID(), knowledgeBaseId: randomUUID() };
const HOSTILE = `Robert'}) MATCH (n) DETACH DELETE n //`;
const statementName = new Map(Object.entries(CYPHER).map(([name, text]) => [text as string, name]));

let driver: RecordingDriver;
let store: Neo4jGraphStore;
beforeEach(() => {
  driver = new RecordingDriver();
  store = new Neo4jGraphStore({ driver, database: 'graphs' });
});

const names = (statements: RecordedStatement[]) => statements.map((s) => statementName.get(s.cypher) ?? `unknown: ${s.cypher}`);

/** Every string value anywhere in the parameters (rows included). */
function stringLeaves(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringLeaves);
  if (value && typeof value === 'object' && !isInt(value)) return Object.values(value).flatMap(stringLeaves);
  return [];
}

/** What every recorded statement must satisfy whatever the method. */
function expectSafe(statements: RecordedStatement[], multiKb = false) {
  expect(statements.length).toBeGreaterThan(0);
  for (const s of statements) {
    expect(statementName.has(s.cypher)).toBe(true); // a constant text, never built from values
    expect(s.database).toBe('graphs');
    expect(s.params.organizationId).toBe(scope.organizationId);
    if (multiKb) expect(s.params.knowledgeBaseIds).toEqual([scope.knowledgeBaseId]);
    else expect(s.params.knowledgeBaseId).toBe(scope.knowledgeBaseId);
    for (const v of stringLeaves(s.params).filter((x) => x.length >= 3)) expect(s.cypher).not.toContain(v);
  }
}

describe('Neo4j graph store: statements', () => {
  it('puts the tenant properties on every node and relationship pattern of every statement', () => {
    for (const [name, cypher] of Object.entries(CYPHER)) {
      const patterns = [...cypher.matchAll(/(?:\(\w*:(\w+)|\[\w*:(RELATED))\s*(\{[^}]*\})?/g)];
      expect({ name, patterns: patterns.length > 0 }).toEqual({ name, patterns: true });
      for (const p of patterns) {
        const props = p[3] ?? '';
        expect({ name, pattern: p[0], org: props.includes('organizationId: $organizationId') }).toEqual({ name, pattern: p[0], org: true });
        // entitiesByKeys spans the caller's knowledge bases: its key pattern is bounded by `IN $knowledgeBaseIds`
        const listed = name === 'entitiesByKeys' && p[1] === 'EntityKey';
        const kb = listed || props.includes('knowledgeBaseId: $knowledgeBaseId') || /knowledgeBaseId: [ke]\.knowledgeBaseId/.test(props);
        expect({ name, pattern: p[0], kb }).toEqual({ name, pattern: p[0], kb: true });
      }
      // unlabelled nodes are only relationship ends whose relationship carries the tenant
      for (const line of cypher.split('\n').filter((l) => /\bMATCH\b/.test(l) && !/\bON MATCH SET\b/.test(l)))
        expect({ name, line, tenant: line.includes('organizationId: $organizationId') }).toEqual({ name, line, tenant: true });
    }
    // the multi-knowledge-base lookup is bounded by the caller's list
    expect(CYPHER.entitiesByKeys).toContain('k.knowledgeBaseId IN $knowledgeBaseIds');
  });

  it('creates its constraints and indexes at start, each in its own write transaction', async () => {
    await store.start();
    expect(driver.statements.map((s) => s.cypher)).toEqual([...SCHEMA]);
    expect(driver.statements.every((s) => s.mode === 'WRITE' && s.database === 'graphs')).toBe(true);
    expect(SCHEMA).toContain(
      'CREATE CONSTRAINT graph_entity_key IF NOT EXISTS FOR (k:EntityKey) REQUIRE (k.knowledgeBaseId, k.key) IS UNIQUE',
    );
    for (const pattern of [
      '(e:Entity) ON (e.organizationId',
      '(k:EntityKey) ON (k.organizationId',
      '(m:Mention) ON (m.organizationId',
      '(s:GraphSuggestion) ON (s.organizationId',
    ])
      expect({ pattern, indexed: SCHEMA.some((s) => s.includes(pattern)) }).toEqual({ pattern, indexed: true });
    expect(SCHEMA).toContain(
      'CREATE INDEX graph_related_scope IF NOT EXISTS FOR ()-[r:RELATED]-() ON (r.organizationId, r.knowledgeBaseId)',
    );
  });

  it('lists entities with one count and one page statement, filters as nullable parameters, paging as Integer', async () => {
    await store.listEntities(scope, { type: 'person', search: HOSTILE, documentId: undefined, limit: 20, offset: 40 });
    expect(names(driver.statements)).toEqual(['countEntities', 'pageEntities']);
    expect(driver.statements.every((s) => s.mode === 'READ')).toBe(true);
    expectSafe(driver.statements);
    const page = driver.statements[1];
    expect(page.params).toEqual({
      organizationId: scope.organizationId,
      knowledgeBaseId: scope.knowledgeBaseId,
      type: 'person',
      search: HOSTILE.toLowerCase(),
      documentId: null,
      offset: expect.anything(),
      limit: expect.anything(),
    });
    expect(isInt(page.params.limit) && isInt(page.params.offset)).toBe(true);
    expect([String(page.params.offset), String(page.params.limit)]).toEqual(['40', '20']);
    expect(page.cypher).toBe(`MATCH (e:Entity {organizationId: $organizationId, knowledgeBaseId: $knowledgeBaseId})
WHERE NOT coalesce(e.hidden, false)
  AND ($type IS NULL OR e.type = $type)
  AND ($search IS NULL OR toLower(e.name) CONTAINS $search OR any(a IN e.aliases WHERE toLower(a) CONTAINS $search))
  AND ($documentId IS NULL OR EXISTS { MATCH (d:Mention {organizationId: $organizationId, knowledgeBaseId: $knowledgeBaseId, entityId: e.id, documentId: $documentId}) })
OPTIONAL MATCH (m:Mention {organizationId: $organizationId, knowledgeBaseId: $knowledgeBaseId, entityId: e.id})
WITH e, sum(m.count) AS mentionCount, collect(DISTINCT m.documentId) AS documentIds
ORDER BY mentionCount DESC, e.name ASC, e.id ASC SKIP $offset LIMIT $limit
RETURN e, mentionCount, documentIds`);
  });

  it('replaces a document in one write transaction: clear, resolve keys, create, link, drop the unmentioned', async () => {
    const documentId = randomUUID();
    const stale = randomUUID();
    driver.reply(CYPHER.clearMentions, [record({ touched: [stale] })]);
    const ada = {
      keys: keysOf(HOSTILE, ['Ada']),
      name: HOSTILE,
      type: 'person',
      aliases: ['Ada'],
      confidence: 0.8,
      mentions: [{ chunkIndex: 2, count: 3 }],
    };
    const babbage = {
      keys: keysOf('Charles Babbage', []),
      name: 'Charles Babbage',
      type: 'person',
      aliases: [],
      confidence: 0.7,
      mentions: [{ chunkIndex: 2, count: 1 }],
    };
    const result = await store.replaceDocument(
      { ...scope, documentId },
      {
        entities: [ada, babbage],
        relationships: [
          { sourceKey: ada.keys[0], targetKey: babbage.keys[0], type: 'worked_with', weight: 0.6, chunkIndex: 2, evidence: 'they met' },
          { sourceKey: ada.keys[0], targetKey: babbage.keys[0], type: 'worked_with', weight: 0.9, chunkIndex: 2, evidence: 'they worked' },
          { sourceKey: ada.keys[0], targetKey: ada.keys[0], type: 'is', weight: 1, chunkIndex: 2 },
        ],
      },
      NOW,
    );
    expect(result).toEqual({ entities: 2, relationships: 1 });
    expect(names(driver.statements)).toEqual([
      'clearMentions',
      'clearRelationships',
      'resolveKeys',
      'createEntities',
      'addKeys',
      'createMentions',
      'createRelationships',
      'dropUnmentioned',
    ]);
    expect(driver.statements.every((s) => s.mode === 'WRITE')).toBe(true);
    expectSafe(driver.statements);
    const [clear, , resolve, create, keys, mentions, rels, drop] = driver.statements;
    expect(clear.params).toEqual({ organizationId: scope.organizationId, knowledgeBaseId: scope.knowledgeBaseId, documentId });
    expect(resolve.params.keys).toEqual([...new Set([...ada.keys, ...babbage.keys])]);
    const created = create.params.rows as { id: string; name: string; aliases: string[] }[];
    expect(created.map((r) => [r.name, r.aliases])).toEqual([
      [HOSTILE, ['Ada']],
      ['Charles Babbage', []],
    ]);
    expect(create.params.now).toBe(NOW);
    expect((keys.params.rows as { key: string; entityId: string }[]).map((r) => r.key).sort()).toEqual(
      [...ada.keys, ...babbage.keys].sort(),
    );
    const mentionRows = mentions.params.rows as { entityId: string; chunkIndex: unknown; count: unknown }[];
    expect(mentionRows.map((m) => [m.entityId, String(m.chunkIndex), String(m.count), isInt(m.count)])).toEqual([
      [created[0].id, '2', '3', true],
      [created[1].id, '2', '1', true],
    ]);
    expect(rels.params).toMatchObject({ documentId, now: NOW });
    expect(rels.params.rows).toEqual([
      expect.objectContaining({
        sourceEntityId: created[0].id,
        targetEntityId: created[1].id,
        type: 'worked_with',
        weight: 0.9,
        evidence: 'they worked',
      }),
    ]);
    expect(drop.params.ids).toEqual([stale]);
  });

  it('walks the neighbourhood breadth-first with one statement per hop (the depth is never in the text)', async () => {
    const [a, b, c] = ['a', 'b', 'c'].map((x) => `${x}${randomUUID().slice(1)}`);
    driver.reply(CYPHER.existingIds, [record({ id: a })]);
    driver.reply(CYPHER.neighbourIds, (p) =>
      (p.frontier as string[]).includes(a) ? [record({ id: b })] : [record({ id: c }), record({ id: a })],
    );
    await store.neighbourhood(scope, [a], 2, 10);
    expect(names(driver.statements)).toEqual(['existingIds', 'neighbourIds', 'neighbourIds', 'entitiesById', 'relationshipsWithin']);
    expectSafe(driver.statements);
    expect(driver.statements.map((s) => s.params.frontier ?? s.params.ids)).toEqual([[a], [a], [b], [a, b, c], [a, b, c]]);
    expect(String(driver.statements[4].params.limit)).toBe('40');
  });

  it('scopes every curation, suggestion and deletion statement to the tenant', async () => {
    const id = randomUUID();
    const other = randomUUID();
    await store.getEntities(scope, [id]);
    await store.relationshipsOf(scope, [id], 25);
    await store.stats(scope);
    await store.orphanIds(scope);
    await store.rename(scope, id, HOSTILE, 'robert', NOW);
    await store.merge(scope, id, [other], NOW);
    await store.deleteEntities(scope, [id]);
    await store.getPinned(scope);
    await store.setPinned(scope, [{ name: HOSTILE, type: 'person', aliases: [] }], NOW);
    await store.replacePendingSuggestions(scope, [
      {
        id,
        knowledgeBaseId: scope.knowledgeBaseId,
        type: 'rename',
        status: 'pending',
        entityIds: [other],
        payload: { newName: HOSTILE },
        reason: 'why',
        confidence: 0.5,
        resolvedBy: null,
        createdAt: NOW,
        updatedAt: NOW,
      },
    ]);
    await store.listSuggestions(scope, { status: ['pending'], type: 'rename', limit: 5, offset: 0 });
    await store.getSuggestions(scope, [id]);
    await store.setSuggestionStatus(scope, id, ['pending'], 'approved', 'user', NOW);
    await store.suggestionCounts(scope);
    await store.deleteByDocument(scope, randomUUID());
    await store.deleteByKnowledgeBase(scope);
    expectSafe(driver.statements);
    expect(names(driver.statements)).toEqual(
      expect.arrayContaining([
        'setPinned',
        'deleteSuggestionsWithStatus',
        'createSuggestions',
        'pageSuggestions',
        'deleteKbEntities',
        'deleteKbKeys',
      ]),
    );
    const pinned = driver.statements.find((s) => s.cypher === CYPHER.setPinned)!;
    expect(pinned.params.entities).toBe(JSON.stringify([{ name: HOSTILE, type: 'person', aliases: [] }]));
    const created = driver.statements.find((s) => s.cypher === CYPHER.createSuggestions)!;
    expect(created.params.rows).toEqual([
      expect.objectContaining({ id, payload: JSON.stringify({ newName: HOSTILE }), entityIds: [other] }),
    ]);
    expect(driver.statements.find((s) => s.cypher === CYPHER.deleteSuggestionsWithStatus)!.params.status).toBe('pending');
    expect(driver.statements.find((s) => s.cypher === CYPHER.pageSuggestions)!.params).toMatchObject({
      statuses: ['pending'],
      type: 'rename',
    });
    // a missing entity: rename and merge stop after their read, nothing is written
    expect(names(driver.statements).filter((n) => ['renameEntity', 'pointKey', 'moveKeys', 'deleteMerged'].includes(n))).toEqual([]);
  });

  it('asks findByKeys within the caller organization and knowledge bases only', async () => {
    await store.findByKeys(scope.organizationId, [scope.knowledgeBaseId], ['ada lovelace', HOSTILE]);
    expect(names(driver.statements)).toEqual(['entitiesByKeys']);
    expectSafe(driver.statements, true);
    expect(driver.statements[0].params).toEqual({
      organizationId: scope.organizationId,
      knowledgeBaseIds: [scope.knowledgeBaseId],
      keys: ['ada lovelace', HOSTILE],
    });
  });
});
