import { SERVICES } from '../../app/container';
import type { Services } from '../../app/services';
import type { KnowledgeDocument } from '../../core/knowledge/document';
import { enqueueDueSyncs } from '../../core/sources/schedule-syncs';
import { syncSource } from '../../core/sources/sync-source';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { joinOrganization, registerUser, type TestUser } from '../support/users';
import { type FixtureSite, startFixtureSite } from './fixtures/site';

/** Polls until `check` returns a value (not undefined/false) or fails after `attempts` tries. */
async function eventually<T>(check: () => Promise<T | undefined | false>, what: string, attempts = 200): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    const value = await check();
    if (value) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('sources end to end (gateway, queue, worker, ingestion, search)', () => {
  let site: FixtureSite;
  let platform: TestPlatform;
  let services: Services;
  let owner: TestUser;
  let kbId: string;
  let sourceId: string;

  const docsOf = async (id = sourceId): Promise<KnowledgeDocument[]> => {
    const kb = await platform.store.repos.knowledgeBases.findById(owner.orgId, kbId);
    const { items } = await platform.store.repos.documents.list(owner.orgId, kb!.id, { limit: 200, offset: 0 });
    return items.filter((d) => d.sourceId === id).sort((a, b) => (a.sourceItemKey ?? '').localeCompare(b.sourceItemKey ?? ''));
  };
  const settled =
    (id = sourceId, count = 3) =>
    async () => {
      const source = await platform.store.repos.sources.findById(owner.orgId, id);
      const docs = await docsOf(id);
      const done = source?.syncHealth !== 'pending' && docs.length === count && docs.every((d) => d.processingStatus === 'completed');
      return done ? docs : undefined;
    };

  beforeAll(async () => {
    site = await startFixtureSite();
    platform = await startTestPlatform({ OUTBOUND_ALLOW: `127.0.0.1:${site.port}` });
    services = platform.container.get<Services>(SERVICES);
    owner = await registerUser(platform.http, { label: 'src-owner' });
    const kb = await platform.http.post('/api/knowledge/kb', { name: 'Garden' }, { token: owner.accessToken });
    expect(kb.status).toBe(201);
    kbId = kb.body.knowledgeBase.id;
  }, 120_000);
  afterAll(async () => {
    await platform?.close();
    await site?.close();
  });

  it('adds an RSS source, indexes its entries through the pipeline, and search finds them', async () => {
    const r = await platform.http.post(
      `/api/knowledge/kb/${kbId}/sources/url`,
      { url: `${site.base}/feed.xml`, sourceType: 'rss', maxItems: 10 },
      { token: owner.accessToken },
    );
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ jobId: expect.any(String), message: expect.any(String) });
    expect(r.body.source).toMatchObject({
      knowledgeBaseId: kbId,
      url: `${site.base}/feed.xml`,
      sourceType: 'rss',
      options: { maxItems: 10 },
      syncEnabled: false,
      syncFrequencyMinutes: 60,
      lastSyncedAt: null,
      nextSyncAt: null,
      syncHealth: 'pending',
      lastSyncError: null,
      itemCount: 0,
    });
    sourceId = r.body.source.id;
    const docs = await eventually(settled(), 'the three feed entries to be indexed');
    expect(docs.map((d) => d.sourceItemKey)).toEqual(['post-1', 'post-2', 'post-3']);
    expect(docs[1]).toMatchObject({
      title: 'Second post about composting',
      mimeType: 'text/plain',
      metadata: expect.objectContaining({ url: 'http://garden.test/post-2', author: 'Ada Gardener', sourceType: 'rss' }),
    });

    const list = await platform.http.get(`/api/knowledge/kb/${kbId}/sources`, { token: owner.accessToken });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({
      count: 1,
      sources: [{ id: sourceId, syncHealth: 'healthy', lastSyncError: null, itemCount: 3, lastSyncedAt: expect.any(String) }],
    });

    const search = await platform.http.post(
      '/api/knowledge/search',
      { knowledgeBaseIds: [kbId], query: 'kitchen scraps compost soil' },
      { token: owner.accessToken },
    );
    expect(search.status).toBe(200);
    expect(search.body.results[0]).toMatchObject({ knowledgeBaseId: kbId, metadata: expect.objectContaining({ documentId: docs[1].id }) });
    expect(search.body.results[0].content).toContain('Compost turns kitchen scraps into soil');
  });

  it('re-sync re-indexes only the entry whose content changed, and adds new entries', async () => {
    const before = await docsOf();
    site.state.rssSecondBody = '<p>Compost needs greens, browns and air; turn the heap weekly.</p>';
    const r = await platform.http.post(`/api/knowledge/kb/${kbId}/sources/${sourceId}/sync`, undefined, { token: owner.accessToken });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ message: expect.any(String), sourceId, jobId: expect.any(String) });
    const after = await eventually(async () => {
      const docs = await docsOf();
      return docs[1].jobId !== before[1].jobId && docs[1].processingStatus === 'completed' ? docs : undefined;
    }, 'the changed entry to be re-indexed');
    // Same documents; only the changed one was processed again.
    expect(after.map((d) => d.id)).toEqual(before.map((d) => d.id));
    expect(after[0]).toMatchObject({ jobId: before[0].jobId, processedAt: before[0].processedAt, updatedAt: before[0].updatedAt });
    expect(after[2]).toMatchObject({ jobId: before[2].jobId, processedAt: before[2].processedAt, updatedAt: before[2].updatedAt });
    expect(after[1].contentHash).not.toBe(before[1].contentHash);
    const search = await platform.http.post(
      '/api/knowledge/search',
      { knowledgeBaseIds: [kbId], query: 'turn the heap weekly' },
      { token: owner.accessToken },
    );
    expect(search.body.results[0].content).toContain('turn the heap weekly');
    expect(search.body.results.some((x: { content: string }) => x.content.includes('kitchen scraps'))).toBe(false);

    // The sync use case itself, called directly: nothing changed now; then one new entry.
    expect(await syncSource(services.sources, { organizationId: owner.orgId, sourceId })).toMatchObject({
      status: 'healthy',
      listed: 3,
      created: 0,
      updated: 0,
      unchanged: 3,
      failed: 0,
    });
    site.state.rssExtraItems = 1;
    expect(await syncSource(services.sources, { organizationId: owner.orgId, sourceId })).toMatchObject({
      status: 'healthy',
      listed: 4,
      created: 1,
      updated: 0,
      unchanged: 3,
    });
    await eventually(settled(sourceId, 4), 'the new entry to be indexed');
    // Entries that leave the feed keep their documents.
    site.state.rssExtraItems = 0;
    expect(await syncSource(services.sources, { organizationId: owner.orgId, sourceId })).toMatchObject({ listed: 3, unchanged: 3 });
    expect(await docsOf()).toHaveLength(4);
  });

  it('records failing health with the reason, and the agent knowledge-base listing shows it', async () => {
    const add = await platform.http.post(
      `/api/knowledge/kb/${kbId}/sources/url`,
      { url: `${site.base}/`, sourceType: 'shopify', syncEnabled: true, syncFrequencyMinutes: 30, maxItems: 2, maxPages: 1 },
      { token: owner.accessToken },
    );
    expect(add.status).toBe(201);
    const shopId = add.body.source.id;
    expect(add.body.source.nextSyncAt).toEqual(expect.any(String));
    await eventually(settled(shopId, 3), 'the store to be indexed');
    site.state.shopifyThrottled = true;
    try {
      const report = await syncSource(services.sources, { organizationId: owner.orgId, sourceId: shopId });
      expect(report).toMatchObject({ status: 'failing', error: 'The store is rate-limiting requests; try again in a few minutes' });
    } finally {
      site.state.shopifyThrottled = false;
    }
    const source = await platform.store.repos.sources.findById(owner.orgId, shopId);
    expect(source).toMatchObject({
      syncHealth: 'failing',
      lastSyncError: 'The store is rate-limiting requests; try again in a few minutes',
    });
    expect(Date.parse(source!.nextSyncAt!)).toBeGreaterThan(Date.now() + 25 * 60_000);

    const agent = await platform.http.post(
      '/api/bots',
      { name: 'Gardener', isDraft: true, knowledgeBaseIds: [kbId] },
      { token: owner.accessToken },
    );
    expect(agent.status).toBe(201);
    const agentId = agent.body.bot?.id ?? agent.body.data?.id;
    const kbs = await platform.http.get(`/api/knowledge/agents/${agentId}/kbs`, { token: owner.accessToken });
    expect(kbs.status).toBe(200);
    expect(kbs.body.knowledgeBases[0]).toMatchObject({
      failedSourceCount: 1,
      failedSources: [{ sourceId: shopId, sourceUrl: site.base, lastSyncError: expect.stringContaining('rate-limiting') }],
    });

    // Healthy again after a good sync.
    expect(await syncSource(services.sources, { organizationId: owner.orgId, sourceId: shopId })).toMatchObject({
      status: 'healthy',
      unchanged: 3,
    });
    expect(await platform.store.repos.sources.findById(owner.orgId, shopId)).toMatchObject({ syncHealth: 'healthy', lastSyncError: null });
  });

  it('the scheduler tick queues due sources once and moves their next sync ahead', async () => {
    const repos = platform.store.repos;
    const now = new Date();
    const due = new Date(now.getTime() - 60_000).toISOString();
    await repos.sources.update(owner.orgId, sourceId, { syncEnabled: true, syncFrequencyMinutes: 15, nextSyncAt: due });
    const lastSynced = (await repos.sources.findById(owner.orgId, sourceId))!.lastSyncedAt;
    const first = await enqueueDueSyncs(services.sources, now);
    expect(first.enqueued.map((e) => e.sourceId)).toContain(sourceId);
    const moved = await repos.sources.findById(owner.orgId, sourceId);
    expect(Date.parse(moved!.nextSyncAt!)).toBe(now.getTime() + 15 * 60_000);
    // The queued job runs in this process's worker.
    await eventually(
      async () => (await repos.sources.findById(owner.orgId, sourceId))!.lastSyncedAt !== lastSynced,
      'the scheduled sync to run',
    );
    expect((await enqueueDueSyncs(services.sources, now)).enqueued.map((e) => e.sourceId)).not.toContain(sourceId);
    await repos.sources.update(owner.orgId, sourceId, { syncEnabled: false, nextSyncAt: null });
    expect((await enqueueDueSyncs(services.sources, new Date(now.getTime() + 60 * 60_000))).enqueued.map((e) => e.sourceId)).not.toContain(
      sourceId,
    );
  });

  it('needs edit on the knowledge base; other organizations get 404', async () => {
    const viewer = await registerUser(platform.http, { label: 'src-viewer' });
    await joinOrganization(platform.http, owner, owner.orgId, viewer, 'viewer');
    const body = { url: `${site.base}/about` };
    expect((await platform.http.post(`/api/knowledge/kb/${kbId}/sources/url`, body, { token: viewer.accessToken })).status).toBe(403);
    expect(
      (await platform.http.post(`/api/knowledge/kb/${kbId}/sources/${sourceId}/sync`, undefined, { token: viewer.accessToken })).status,
    ).toBe(403);
    expect((await platform.http.delete(`/api/knowledge/kb/${kbId}/sources/${sourceId}`, { token: viewer.accessToken })).status).toBe(403);

    const stranger = await registerUser(platform.http, { label: 'src-stranger' });
    expect((await platform.http.post(`/api/knowledge/kb/${kbId}/sources/url`, body, { token: stranger.accessToken })).status).toBe(404);
    expect((await platform.http.get(`/api/knowledge/kb/${kbId}/sources`, { token: stranger.accessToken })).status).toBe(404);
    expect(
      (await platform.http.post(`/api/knowledge/kb/${kbId}/sources/${sourceId}/sync`, undefined, { token: stranger.accessToken })).status,
    ).toBe(404);
  });

  it('validates the body and refuses unknown source types', async () => {
    const post = (body: unknown) => platform.http.post(`/api/knowledge/kb/${kbId}/sources/url`, body, { token: owner.accessToken });
    expect((await post({})).status).toBe(400);
    expect((await post({ url: `${site.base}/about`, crawlDepth: 7 })).status).toBe(400);
    expect((await post({ url: `${site.base}/about`, mediaEmbeddingStrategy: 'magic' })).status).toBe(400);
    const unknown = await post({ url: `${site.base}/about`, sourceType: 'gopher' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('shopify');
  });

  it('deleting a source removes its documents and their chunks', async () => {
    const before = await docsOf();
    expect(before.length).toBeGreaterThan(0);
    const r = await platform.http.delete(`/api/knowledge/kb/${kbId}/sources/${sourceId}`, { token: owner.accessToken });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ sourceId, documentsDeleted: before.length, chunksDeleted: expect.any(Number) });
    expect(r.body.chunksDeleted).toBeGreaterThanOrEqual(before.length);
    expect(await docsOf()).toEqual([]);
    expect(await platform.store.repos.sources.findById(owner.orgId, sourceId)).toBeNull();
    const search = await platform.http.post(
      '/api/knowledge/search',
      { knowledgeBaseIds: [kbId], query: 'tomatoes full sun' },
      { token: owner.accessToken },
    );
    expect(search.body.results.some((x: { content: string }) => x.content.includes('Tomatoes need full sun'))).toBe(false);
    expect((await platform.http.delete(`/api/knowledge/kb/${kbId}/sources/${sourceId}`, { token: owner.accessToken })).status).toBe(404);
  });
});
