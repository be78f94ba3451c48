/**
 * Contract tests of the Neo4j graph store, part 2: what it makes of the records the driver returns. The
 * records are built with neo4j-driver's real Record, Node, Relationship and Integer classes, shaped as the
 * server returns them for each statement (integers written with int() come back as Integer, floats as numbers,
 * lists as arrays, JSON-valued properties as strings).
 */
import { randomUUID } from 'node:crypto';

import { int } from 'neo4j-driver';

import type { GraphScope } from '../../core/ports/graph-store';
import { Neo4jGraphStore } from './neo4j.graph-store';
import { CYPHER } from './neo4j.statements';
import { entityNode, record, RecordingDriver, relatedRelationship, suggestionNode } from './test-fixtures/recording-driver';

const NOW = '2025-01-01T00:00:00.000Z';
const scope: GraphScope = { organizationId: randomUUID(), knowledgeBaseId: randomUUID() };
const [doc1, doc2] = [randomUUID(), randomUUID()].sort();

const entityRow = (id: string, name: string, over: Record<string, unknown> = {}, mentions = int(3), documentIds = [doc2, doc1]) =>
  record({
    e: entityNode({
      id,
      organizationId: scope.organizationId,
      knowledgeBaseId: scope.knowledgeBaseId,
      name,
      type: 'person',
      aliases: ['Lovelace'],
      confidence: 0.85,
      hidden: false,
      createdAt: NOW,
      updatedAt: NOW,
      ...over,
    }),
    mentionCount: mentions,
    documentIds,
  });

const relRow = (id: string, source: string, target: string, weight: number, type = 'worked_with', documentId = doc1) =>
  record({
    r: relatedRelationship({
      id,
      organizationId: scope.organizationId,
      knowledgeBaseId: scope.knowledgeBaseId,
      type,
      weight,
      documentId,
      chunkIndex: int(4),
      evidence: 'Ada worked with Babbage.',
      createdAt: NOW,
    }),
    sourceEntityId: source,
    targetEntityId: target,
  });

let driver: RecordingDriver;
let store: Neo4jGraphStore;
beforeEach(() => {
  driver = new RecordingDriver();
  store = new Neo4jGraphStore({ driver, ownsDriver: true });
});

describe('Neo4j graph store: records', () => {
  it('parses entity nodes with Integer counts, sorted document ids and absent optional properties', async () => {
    const ada = randomUUID();
    driver.reply(CYPHER.countEntities, [record({ total: int(41) })]);
    driver.reply(CYPHER.pageEntities, [entityRow(ada, 'Ada Lovelace'), entityRow(randomUUID(), 'Nobody', { aliases: [] }, int(0), [])]);
    const page = await store.listEntities(scope, { limit: 2, offset: 0 });
    expect(page.total).toBe(41);
    expect(page.items[0]).toEqual({
      id: ada,
      organizationId: scope.organizationId,
      knowledgeBaseId: scope.knowledgeBaseId,
      name: 'Ada Lovelace',
      type: 'person',
      aliases: ['Lovelace'],
      description: null,
      confidence: 0.85,
      hidden: false,
      mentionCount: 3,
      documentIds: [doc1, doc2],
      createdAt: NOW,
      updatedAt: NOW,
    });
    expect(page.items[1]).toMatchObject({ aliases: [], mentionCount: 0, documentIds: [] });
  });

  it('parses RELATED relationships with their ends, Integer chunk index and float weight', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    const rid = randomUUID();
    driver.reply(CYPHER.relationshipsTouching, [relRow(rid, a, b, 0.75)]);
    expect(await store.relationshipsOf(scope, [a], 10)).toEqual([
      {
        id: rid,
        knowledgeBaseId: scope.knowledgeBaseId,
        sourceEntityId: a,
        targetEntityId: b,
        type: 'worked_with',
        weight: 0.75,
        documentId: doc1,
        chunkIndex: 4,
        evidence: 'Ada worked with Babbage.',
        createdAt: NOW,
      },
    ]);
  });

  it('sums stats from Integer counts per type', async () => {
    driver.reply(CYPHER.entitiesByType, [record({ type: 'person', n: int(2) }), record({ type: 'place', n: int(5) })]);
    driver.reply(CYPHER.countRelationships, [record({ n: int(9) })]);
    expect(await store.stats(scope)).toEqual({ totalEntities: 7, totalRelationships: 9, entitiesByType: { person: 2, place: 5 } });
  });

  it('parses suggestions (JSON payload), pinned entities, counts, and a refused status move as null', async () => {
    const id = randomUUID();
    const node = suggestionNode({
      id,
      organizationId: scope.organizationId,
      knowledgeBaseId: scope.knowledgeBaseId,
      type: 'duplicate',
      status: 'approved',
      entityIds: ['e1', 'e2'],
      payload: JSON.stringify({ canonicalEntityId: 'e1' }),
      reason: 'same name',
      confidence: 0.9,
      resolvedBy: 'ai',
      createdAt: NOW,
      updatedAt: NOW,
    });
    driver.reply(CYPHER.setSuggestionStatus, [record({ s: node })]);
    expect(await store.setSuggestionStatus(scope, id, ['pending'], 'approved', 'ai', NOW)).toEqual({
      id,
      knowledgeBaseId: scope.knowledgeBaseId,
      type: 'duplicate',
      status: 'approved',
      entityIds: ['e1', 'e2'],
      payload: { canonicalEntityId: 'e1' },
      reason: 'same name',
      confidence: 0.9,
      resolvedBy: 'ai',
      createdAt: NOW,
      updatedAt: NOW,
    });
    driver.reply(CYPHER.setSuggestionStatus, []);
    expect(await store.setSuggestionStatus(scope, id, ['pending'], 'rejected', 'user', NOW)).toBeNull();
    // resolvedBy is absent when it was set to null (Neo4j removes null properties)
    const { resolvedBy: _drop, ...rest } = node.properties;
    driver.reply(CYPHER.suggestionsById, [record({ s: suggestionNode(rest) })]);
    expect((await store.getSuggestions(scope, [id]))[0]).toMatchObject({ resolvedBy: null, payload: { canonicalEntityId: 'e1' } });
    driver.reply(CYPHER.suggestionCounts, [record({ type: 'orphan', status: 'pending', count: int(3) })]);
    expect(await store.suggestionCounts(scope)).toEqual([{ type: 'orphan', status: 'pending', count: 3 }]);
    driver.reply(CYPHER.getPinned, [
      record({ entities: JSON.stringify([{ name: 'Analytical Engine', type: 'product', aliases: ['the engine'] }]) }),
    ]);
    expect(await store.getPinned(scope)).toEqual([{ name: 'Analytical Engine', type: 'product', aliases: ['the engine'] }]);
    driver.reply(CYPHER.getPinned, []);
    expect(await store.getPinned(scope)).toEqual([]);
  });

  it('resolves known keys to their entity: new names create, known ones widen aliases and confidence', async () => {
    const known = randomUUID();
    driver.reply(CYPHER.resolveKeys, [record({ key: 'ada lovelace', id: known, name: 'Ada Lovelace', aliases: [], confidence: 0.5 })]);
    const result = await store.replaceDocument(
      { ...scope, documentId: doc1 },
      {
        entities: [
          {
            keys: ['ada lovelace', 'countess'],
            name: 'Ada Lovelace',
            type: 'person',
            aliases: ['Countess'],
            confidence: 0.9,
            mentions: [{ chunkIndex: 0, count: 1 }],
          },
          { keys: ['london'], name: 'London', type: 'place', aliases: [], confidence: 0.6, mentions: [{ chunkIndex: 1, count: 2 }] },
        ],
        relationships: [{ sourceKey: 'countess', targetKey: 'london', type: 'located_in', weight: 1.4, chunkIndex: 1 }],
      },
      NOW,
    );
    expect(result).toEqual({ entities: 2, relationships: 1 });
    const run = (cypher: string) => driver.statements.find((s) => s.cypher === cypher)!.params;
    expect(run(CYPHER.createEntities).rows).toEqual([expect.objectContaining({ name: 'London', type: 'place' })]);
    expect(run(CYPHER.updateEntities).rows).toEqual([{ id: known, aliases: ['Countess'], confidence: 0.9 }]);
    expect(run(CYPHER.addKeys).rows).toContainEqual({ key: 'countess', entityId: known });
    // the weight is clamped to 0-1, the relationship found through the alias key
    expect(run(CYPHER.createRelationships).rows).toEqual([expect.objectContaining({ sourceEntityId: known, weight: 1, evidence: null })]);
    // no entity lost its last mention: nothing to drop
    expect(driver.statements.some((s) => s.cypher === CYPHER.dropUnmentioned)).toBe(false);
  });

  it('merges: aliases gathered, relationships re-pointed without self-loops, duplicates keep the higher weight', async () => {
    const [canon, dup, other] = [randomUUID(), randomUUID(), randomUUID()];
    driver.reply(CYPHER.entityNames, [
      record({ id: canon, name: 'Charles Babbage', aliases: ['Babbage'], confidence: 0.6 }),
      record({ id: dup, name: 'C. Babbage', aliases: ['Mr Babbage'], confidence: 0.8 }),
    ]);
    driver.reply(CYPHER.relationshipsOfAll, [
      relRow('r1', dup, canon, 0.9, 'knows'), // becomes a self-loop: dropped
      relRow('r2', dup, other, 0.4),
      relRow('r3', other, dup, 0.7, 'worked_with', doc2),
      relRow('r4', dup, other, 0.6), // same (canon, other, worked_with, doc1) as r2: the higher weight stays
    ]);
    expect(await store.merge(scope, canon, [dup], NOW)).toBe(1);
    const run = (cypher: string) => driver.statements.find((s) => s.cypher === cypher)!.params;
    expect(run(CYPHER.moveKeys)).toMatchObject({ ids: [dup], canonicalId: canon });
    expect((run(CYPHER.deleteRelationships).ids as string[]).sort()).toEqual(['r1', 'r2', 'r3', 'r4']);
    const rows = run(CYPHER.upsertRelationships).rows as Record<string, unknown>[];
    expect(rows.map((r) => [r.id, r.sourceEntityId, r.targetEntityId, r.weight])).toEqual([
      ['r3', other, canon, 0.7],
      ['r4', canon, other, 0.6],
    ]);
    expect(run(CYPHER.deleteMerged).ids).toEqual([dup]);
    expect(run(CYPHER.updateCanonical)).toMatchObject({ id: canon, confidence: 0.8 });
    expect((run(CYPHER.updateCanonical).aliases as string[]).sort()).toEqual(['Babbage', 'C. Babbage', 'Mr Babbage']);
  });

  it('reads deleted counts as numbers and closes the driver it owns', async () => {
    driver.reply(CYPHER.deleteEntities, [record({ n: int(2) })]);
    expect(await store.deleteEntities(scope, ['a', 'b'])).toBe(2);
    await store.close();
    expect(driver.closed).toBe(true);
  });
});
