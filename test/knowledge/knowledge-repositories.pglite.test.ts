import { randomUUID } from 'node:crypto';

import type { KnowledgeDocument } from '../../core/knowledge/document';
import type { Repositories } from '../../core/ports/repositories';
import { createKnowledgeHarness, type KnowledgeHarness } from './knowledge-harness';

let h: KnowledgeHarness;
let repos: Repositories;
let org: string;
let userId: string;
beforeAll(async () => {
  h = await createKnowledgeHarness();
  repos = h.deps.store.repos;
  const o = await h.newOrganization('repos');
  org = o.organizationId;
  userId = o.owner.userId;
});
afterAll(() => h?.close());

const now = () => new Date().toISOString();
function document(kbId: string, over: Partial<KnowledgeDocument> = {}): KnowledgeDocument {
  return {
    id: randomUUID(),
    organizationId: org,
    knowledgeBaseId: kbId,
    title: 'a.txt',
    mimeType: 'text/plain',
    fileSizeBytes: 10,
    processingStatus: 'pending',
    error: null,
    chunkCount: 0,
    blobKey: `${org}/${kbId}/x/a.txt`,
    contentHash: null,
    sourceId: null,
    sourceItemKey: null,
    summary: null,
    topics: [],
    metadata: {},
    jobId: 'job-1',
    createdBy: null,
    createdAt: now(),
    updatedAt: now(),
    processedAt: null,
    ...over,
  };
}
async function agent(name: string, deleted = false) {
  const id = randomUUID();
  await h.db.knex('agents').insert({
    id,
    organization_id: org,
    name,
    model: 'local/extractive',
    created_by: userId,
    created_at: now(),
    updated_at: now(),
    deleted_at: deleted ? now() : null,
  });
  return id;
}

describe('knowledge repositories on PGlite', () => {
  it('knowledge bases: create, find within the organization only, list newest first, update, grants, count', async () => {
    const a = await h.newKnowledgeBase(org, { name: 'A', createdAt: '2024-01-01T00:00:00.000Z' });
    const b = await h.newKnowledgeBase(org, { name: 'B', createdAt: '2024-01-02T00:00:00.000Z' });
    expect(await repos.knowledgeBases.findById(randomUUID(), a.id)).toBeNull();
    expect((await repos.knowledgeBases.findById(org, a.id))!.settings).toEqual(a.settings);
    const page = await repos.knowledgeBases.list(org, { limit: 1, offset: 0 });
    expect(page.total).toBeGreaterThanOrEqual(2);
    expect((await repos.knowledgeBases.findMany(org, [a.id, b.id, randomUUID()])).map((k) => k.name).sort()).toEqual(['A', 'B']);
    expect(await repos.knowledgeBases.update(org, a.id, { name: 'A2', settings: { ...a.settings, tone: 'dry' } })).toMatchObject({
      name: 'A2',
      settings: { tone: 'dry' },
    });
    expect(await repos.knowledgeBases.update(randomUUID(), a.id, { name: 'nope' })).toBeNull();
    await repos.knowledgeBases.setGrant(a.id, userId, ['edit']);
    expect(await repos.knowledgeBases.grantsFor(a.id, userId)).toEqual(['edit']);
    await repos.knowledgeBases.setGrant(a.id, userId, []);
    expect(await repos.knowledgeBases.grantsFor(a.id, userId)).toEqual([]);
  });

  it('documents: compare-and-set transitions guarded by job id, listing by status, map of completed ones', async () => {
    const kb = await h.newKnowledgeBase(org);
    const d = document(kb.id);
    await repos.documents.create(d);
    expect(await repos.documents.transition(org, d.id, ['completed'], 'failed')).toBeNull();
    expect(await repos.documents.transition(org, d.id, ['pending'], 'processing', {}, { jobId: 'other-job' })).toBeNull();
    expect(await repos.documents.transition(org, d.id, ['pending'], 'processing', {}, { jobId: 'job-1' })).toMatchObject({
      processingStatus: 'processing',
    });
    await repos.documents.transition(org, d.id, ['processing'], 'completed', { chunkCount: 4, summary: 'S', topics: ['x', 'y'] });
    await repos.documents.create(document(kb.id, { title: 'b.txt' }));
    expect((await repos.documents.list(org, kb.id, { limit: 10, offset: 0, status: 'completed' })).total).toBe(1);
    expect((await repos.documents.list(org, kb.id, { limit: 10, offset: 0 })).total).toBe(2);
    expect(await repos.documents.map(org, kb.id)).toEqual([
      { documentId: d.id, title: 'a.txt', summary: 'S', topics: ['x', 'y'], chunkCount: 4 },
    ]);
    expect(await repos.documents.blobKeys(org, kb.id)).toHaveLength(2);
    expect(await repos.documents.findById(randomUUID(), d.id)).toBeNull();
  });

  it('links: upsert keeps linked_at, lists by priority then name, counts other live agents with a sample', async () => {
    const [x, y] = [await h.newKnowledgeBase(org, { name: 'Xylo' }), await h.newKnowledgeBase(org, { name: 'Yak' })];
    const main = await agent('Main');
    const others = [await agent('Zed'), await agent('Amy'), await agent('Bob'), await agent('Gone', true)];
    const link = (kb: string, a: string, priority = 0) =>
      repos.knowledgeLinks.upsert({
        agentId: a,
        knowledgeBaseId: kb,
        organizationId: org,
        permissions: { read: true },
        priority,
        linkedAt: now(),
        linkedBy: null,
      });
    await link(x.id, main);
    await link(y.id, main, 2);
    const firstLinkedAt = (await repos.knowledgeLinks.find(org, main, x.id))!.linkedAt;
    await link(x.id, main, 1);
    expect((await repos.knowledgeLinks.find(org, main, x.id))!).toMatchObject({ priority: 1, linkedAt: firstLinkedAt });
    expect((await repos.knowledgeLinks.listForAgent(org, main)).map((l) => [l.knowledgeBase.name, l.link.priority])).toEqual([
      ['Yak', 2],
      ['Xylo', 1],
    ]);
    for (const o of others) await link(x.id, o);
    const other = await repos.knowledgeLinks.otherAgents(org, [x.id, y.id], main, 2);
    expect(other.get(x.id)).toEqual({
      count: 3,
      sample: [
        { id: others[1], name: 'Amy' },
        { id: others[2], name: 'Bob' },
      ],
    });
    expect(other.get(y.id)).toEqual({ count: 0, sample: [] });
    expect(await repos.knowledgeLinks.countForAgent(org, main)).toBe(2);
    expect(await repos.knowledgeLinks.remove(randomUUID(), main, x.id)).toBe(false);
    expect(await repos.knowledgeLinks.remove(org, main, x.id)).toBe(true);
  });

  it('sources, items, stats and the search log; deleting a knowledge base cascades', async () => {
    const kb = await h.newKnowledgeBase(org);
    const source = {
      id: randomUUID(),
      organizationId: org,
      knowledgeBaseId: kb.id,
      url: 'https://a.example/rss',
      sourceType: 'rss',
      options: { maxItems: 5 },
      syncEnabled: true,
      syncFrequencyMinutes: 30,
      lastSyncedAt: null,
      nextSyncAt: '2024-01-01T00:00:00.000Z',
      lastSyncError: null,
      syncHealth: 'pending',
      createdBy: null,
      createdAt: now(),
      updatedAt: now(),
    };
    await repos.sources.create(source);
    await repos.sources.create({ ...source, id: randomUUID(), url: 'https://b.example', syncEnabled: false });
    expect((await repos.sources.listDue(now(), 10)).map((s) => s.id)).toContain(source.id);
    expect(await repos.sources.update(org, source.id, { lastSyncError: 'HTTP 500', syncHealth: 'failing' })).toMatchObject({
      lastSyncError: 'HTTP 500',
      options: { maxItems: 5 },
    });
    const d = document(kb.id, { sourceId: source.id, sourceItemKey: 'item-1', processingStatus: 'completed' });
    await repos.documents.create(d);
    await repos.sources.putItem({ sourceId: source.id, itemKey: 'item-1', contentHash: 'h1', documentId: d.id });
    await repos.sources.putItem({ sourceId: source.id, itemKey: 'item-1', contentHash: 'h2', documentId: d.id });
    expect(await repos.sources.listItems(source.id)).toEqual([
      { sourceId: source.id, itemKey: 'item-1', contentHash: 'h2', documentId: d.id },
    ]);
    expect((await repos.documents.findBySourceItem(org, source.id, 'item-1'))!.id).toBe(d.id);
    expect(await repos.knowledgeBases.stats(org, [kb.id])).toEqual([
      {
        knowledgeBaseId: kb.id,
        documentCount: 1,
        completedDocumentCount: 1,
        sourceCount: 2,
        failedSources: [{ sourceId: source.id, sourceUrl: 'https://a.example/rss', lastSyncError: 'HTTP 500' }],
      },
    ]);
    const entry = {
      id: randomUUID(),
      organizationId: org,
      knowledgeBaseId: kb.id,
      query: 'q',
      source: 'manual' as const,
      userId,
      agentId: null,
      conversationId: null,
      messageId: null,
      resultCount: 2,
      topScore: 0.7,
      durationMs: 12,
      createdAt: now(),
    };
    await repos.searchLog.record([entry, { ...entry, id: randomUUID() }]);
    expect((await repos.searchLog.list(org, kb.id, { limit: 1, offset: 0 })).total).toBe(2);

    expect(await repos.knowledgeBases.delete(org, kb.id)).toBe(true);
    expect(await repos.documents.findById(org, d.id)).toBeNull();
    expect(await repos.sources.findById(org, source.id)).toBeNull();
    expect(await repos.sources.listItems(source.id)).toEqual([]);
    expect((await repos.searchLog.list(org, kb.id, { limit: 5, offset: 0 })).total).toBe(0);
  });
});
