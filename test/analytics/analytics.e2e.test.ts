/**
 * Analytics end to end through the gateway (issue 12): chat turns and searches are recorded, the 4.12
 * endpoints answer from them (with and without the hourly rollup), the knowledge-base views (4.6), message
 * feedback, RBAC and organization scoping.
 */
import { seedDocument } from '../chat/seed-knowledge';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { joinOrganization, registerUser, type TestUser, uniqueEmail } from '../support/users';

const SUPERADMIN = uniqueEmail('root');
let p: TestPlatform;
let owner: TestUser;
let stranger: TestUser;
let kbId: string;
let agentId: string;
const turns: { conversationId: string; messageId: string }[] = [];

const today = () => new Date().toISOString().slice(0, 10);
const dayOffset = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
const range = (extra = '') => `organizationId=${owner.orgId}&startDate=${dayOffset(-2)}&endDate=${today()}${extra}`;
const get = (path: string, user = owner) => p.http.get(path, { token: user.accessToken });

async function chat(message: string, conversationId?: string) {
  const r = await p.http.post(
    `/api/bots/${agentId}/chat`,
    { message, ...(conversationId ? { conversationId } : {}) },
    { token: owner.accessToken },
  );
  expect(r.status).toBe(200);
  turns.push({ conversationId: r.body.conversationId, messageId: r.body.messageId });
  return r.body;
}

beforeAll(async () => {
  p = await startTestPlatform({
    EMBEDDINGS_PROVIDER: 'local',
    VISION_PROVIDER: 'none',
    TRANSCRIPTION_PROVIDER: 'none',
    SUPERADMIN_EMAILS: SUPERADMIN,
  });
  owner = await registerUser(p.http, { label: 'analytics-owner' });
  stranger = await registerUser(p.http, { label: 'analytics-stranger' });
  const kb = await p.http.post('/api/knowledge/kb', { name: 'Policies' }, { token: owner.accessToken });
  kbId = kb.body.knowledgeBase.id;
  await seedDocument(p, owner.orgId, kbId, 'refunds.txt', ['Refunds are paid within fourteen days of the request.']);
  await seedDocument(p, owner.orgId, kbId, 'shipping.txt', ['Shipping is free for orders above fifty euros.']);
  await seedDocument(p, owner.orgId, kbId, 'unused.txt', ['The office plants are watered on Mondays by the facilities team.']);
  const bot = await p.http.post('/api/bots', { name: 'Support', knowledgeBaseIds: [kbId], isDraft: false }, { token: owner.accessToken });
  expect(bot.status).toBe(201);
  agentId = bot.body.bot.id;
  const first = await chat('How long do refunds take?');
  await chat('Is shipping free?', first.conversationId);
  await chat('Zebra xylophone quantum?');
});
afterAll(async () => {
  await p?.close();
});

describe('organization analytics (4.12)', () => {
  it('needs organizationId, startDate and endDate (400 Validation Error)', async () => {
    for (const q of [
      `startDate=${today()}&endDate=${today()}`,
      `organizationId=${owner.orgId}&endDate=${today()}`,
      `organizationId=${owner.orgId}&startDate=${today()}`,
    ]) {
      const r = await get(`/api/analytics/overview?${q}`);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('Validation Error');
    }
    expect((await get(`/api/analytics/overview?${range('&timezone=Mars/Olympus')}`)).status).toBe(400);
    expect((await get(`/api/analytics/daily?organizationId=${owner.orgId}&startDate=${today()}&endDate=${dayOffset(-3)}`)).status).toBe(
      400,
    );
  });

  it('answers 403 to a non-member and serves a platform administrator', async () => {
    for (const path of ['overview', 'daily', 'models', 'bots'])
      expect((await get(`/api/analytics/${path}?${range()}`, stranger)).status).toBe(403);
    expect((await get(`/api/analytics/realtime?organizationId=${owner.orgId}`, stranger)).status).toBe(403);
    const root = await registerUser(p.http, { email: SUPERADMIN });
    const r = await get(`/api/analytics/overview?${range()}`, root);
    expect(r.status).toBe(200);
    expect(r.body.totalMessages.value).toBe(6);
  });

  it('a viewer of the organization cannot read analytics (403)', async () => {
    const viewer = await registerUser(p.http, { label: 'analytics-viewer' });
    await joinOrganization(p.http, owner, owner.orgId, viewer, 'viewer');
    expect((await get(`/api/analytics/overview?${range()}`, viewer)).status).toBe(403);
  });

  it('overview: five metrics with value, trend and change against the previous period', async () => {
    const r = await get(`/api/analytics/overview?${range()}`);
    expect(r.status).toBe(200);
    expect(r.body.totalConversations).toEqual({ value: 2, trend: 'up', change: 100 });
    expect(r.body.totalMessages).toEqual({ value: 6, trend: 'up', change: 100 });
    expect(r.body.totalTokens.value).toBeGreaterThan(0);
    expect(r.body.totalCost).toEqual({ value: 0, trend: 'stable', change: 0 }); // the local model is free
    expect(r.body.averageResponseTime.value).toBeGreaterThanOrEqual(0);
    const other = await get(`/api/analytics/overview?${range(`&botId=${stranger.orgId}`)}`);
    expect(other.body.totalMessages.value).toBe(0);
    const byModel = await get(`/api/analytics/overview?${range('&model=local/nothing')}`);
    expect(byModel.body.totalConversations.value).toBe(0);
  });

  it('daily: one point per day, empty days included; per model; per agent; realtime', async () => {
    const daily = await get(`/api/analytics/daily?${range()}`);
    expect(daily.status).toBe(200);
    expect(daily.body.map((d: any) => d.date)).toEqual([dayOffset(-2), dayOffset(-1), today()]);
    expect(daily.body[0]).toEqual({ date: dayOffset(-2), conversations: 0, messages: 0, tokens: 0, cost: 0, averageResponseTime: 0 });
    expect(daily.body[2]).toMatchObject({ conversations: 2, messages: 6 });

    const models = await get(`/api/analytics/models?${range()}`);
    expect(models.body).toHaveLength(1);
    expect(models.body[0]).toMatchObject({ conversations: 2, messages: 3, cost: 0 });
    const bots = await get(`/api/analytics/bots?${range()}`);
    expect(bots.body).toEqual([expect.objectContaining({ botId: agentId, name: 'Support', conversations: 2, messages: 6 })]);

    const rt = await get(`/api/analytics/realtime?organizationId=${owner.orgId}`);
    expect(rt.status).toBe(200);
    expect(rt.body).toMatchObject({ conversations: 2, messages: 6, activeUsers: 1 });
    const later = await get(
      `/api/analytics/realtime?organizationId=${owner.orgId}&since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
    );
    expect(later.body).toMatchObject({ conversations: 0, messages: 0, activeUsers: 0 });
  });

  it('gives the same numbers once the hours are rolled up by the background job', async () => {
    const before = await Promise.all(['overview', 'daily', 'models', 'bots'].map((x) => get(`/api/analytics/${x}?${range()}`)));
    await p.infra.analytics.store.refreshRollup(new Date(Date.now() + 2 * 3_600_000));
    const [{ n }] = await p.infra.db.knex('analytics_hourly').where({ organization_id: owner.orgId }).count({ n: '*' });
    expect(Number(n)).toBeGreaterThan(0);
    const after = await Promise.all(['overview', 'daily', 'models', 'bots'].map((x) => get(`/api/analytics/${x}?${range()}`)));
    expect(after.map((r) => r.body)).toEqual(before.map((r) => r.body));
  });
});

describe('knowledge-base analytics (4.6)', () => {
  const kbGet = (query: string, user = owner) => get(`/api/knowledge/kb/${kbId}/analytics${query}`, user);

  it('rejects an unknown section (400) and hides another organization’s knowledge base (404)', async () => {
    const r = await kbGet('?section=nope');
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('Validation Error');
    expect((await kbGet('', stranger)).status).toBe(404);
  });

  it('returns the dashboard with all eight views when no section is given', async () => {
    const r = await kbGet('');
    expect(r.status).toBe(200);
    for (const key of [
      'queryTrends',
      'agentUsageBreakdown',
      'knowledgeGaps',
      'contentUtilization',
      'costAttribution',
      'resourcePerformance',
      'feedbackGaps',
      'conversionFunnel',
    ])
      expect(r.body).toHaveProperty(key);
    expect(r.body).toMatchObject({ days: 30, limit: 10 });
  });

  it('trends, agents, gaps and content reflect the recorded chat turns', async () => {
    const trends = (await kbGet('?section=trends')).body;
    expect(Object.keys(trends)).toEqual(['queryTrends']);
    expect(trends.queryTrends.totalQueries).toBe(3);
    expect(trends.queryTrends.topQueries.map((q: any) => q.query)).toContain('how long do refunds take?');
    const agents = (await kbGet('?section=agents')).body.agentUsageBreakdown;
    expect(agents).toEqual([expect.objectContaining({ agentId, name: 'Support', queries: 3, conversations: 2 })]);
    const gaps = (await kbGet('?section=gaps')).body.knowledgeGaps;
    expect(gaps.gaps.map((g: any) => g.query)).toEqual(['zebra xylophone quantum?']);
    const content = (await kbGet('?section=content&limit=5')).body.contentUtilization;
    expect(content.totalDocuments).toBe(3);
    expect(content.unusedDocuments.map((d: any) => d.title)).toEqual(['unused.txt']);
    expect(content.topChunks.length).toBeGreaterThan(0);
    const funnel = (await kbGet('?section=funnel')).body.conversionFunnel;
    expect(funnel.stages[0]).toEqual({ stage: 'searched', count: 3 });
    const costs = (await kbGet('?section=costs')).body.costAttribution;
    expect(costs.bySource).toEqual([{ source: 'chat', queries: 3, cost: 0 }]);
  });

  it('a search is recorded with its source', async () => {
    const s = await p.http.post(
      '/api/knowledge/search?source=manual',
      { knowledgeBaseIds: [kbId], query: 'refunds' },
      { token: owner.accessToken },
    );
    expect(s.status).toBe(200);
    const costs = (await kbGet('?section=costs')).body.costAttribution;
    expect(costs.bySource.map((x: any) => x.source)).toEqual(['chat', 'manual']);
  });

  it('feedback: rating an answer (authenticated) feeds feedback-gaps and resource performance', async () => {
    const { conversationId, messageId } = turns[0];
    const bad = await p.http.post(
      `/api/conversations/${conversationId}/messages/${messageId}/feedback`,
      { rating: 'down', comment: 'Wrong delay' },
      { token: owner.accessToken },
    );
    expect(bad.status).toBe(200);
    expect(bad.body.feedback).toMatchObject({ messageId, rating: 'down', comment: 'Wrong delay' });
    expect(
      (
        await p.http.post(
          `/api/conversations/${conversationId}/messages/${messageId}/feedback`,
          { rating: 'meh' },
          { token: owner.accessToken },
        )
      ).status,
    ).toBe(400);
    expect(
      (
        await p.http.post(
          `/api/conversations/${conversationId}/messages/${messageId}/feedback`,
          { rating: 'up' },
          { token: stranger.accessToken },
        )
      ).status,
    ).toBe(404);
    const gaps = (await kbGet('?section=feedback-gaps')).body.feedbackGaps;
    expect(gaps.items).toEqual([expect.objectContaining({ messageId, comment: 'Wrong delay', query: 'How long do refunds take?' })]);
    expect(gaps.items[0].documents.map((d: any) => d.title)).toContain('refunds.txt');
    const perf = (await kbGet('?section=resource-performance')).body.resourcePerformance;
    expect(perf[0]).toMatchObject({ sourceId: null, sourceType: 'upload', documents: 3, negativeFeedback: 1 });
    // Rating again replaces the rating.
    await p.http.post(
      `/api/conversations/${conversationId}/messages/${messageId}/feedback`,
      { rating: 'up' },
      { token: owner.accessToken },
    );
    expect((await kbGet('?section=feedback-gaps')).body.feedbackGaps.items).toEqual([]);
  });

  it('learning: readiness with the three stages, prior on by default; PATCH needs edit', async () => {
    const r = await kbGet('?section=learning');
    expect(r.status).toBe(200);
    const lr = r.body.learningReadiness;
    expect(lr.stages.map((s: any) => s.id)).toEqual(['smart_ranking', 'learned_weights', 'custom_reranker']);
    for (const s of lr.stages) {
      expect(s).toEqual(expect.objectContaining({ threshold: expect.any(Number), unlocked: false }));
      expect(s.progress).toBeGreaterThanOrEqual(0);
      expect(s.progress).toBeLessThanOrEqual(1);
    }
    expect(lr.priorEnabled).toBe(true);
    expect(typeof lr.score).toBe('number');
    expect(Array.isArray(lr.breakdown)).toBe(true);
    expect((await p.http.patch(`/api/knowledge/kb/${kbId}/learning-prior`, {}, { token: owner.accessToken })).status).toBe(400);
    expect(
      (await p.http.patch(`/api/knowledge/kb/${kbId}/learning-prior`, { enabled: false }, { token: stranger.accessToken })).status,
    ).toBe(404);
    expect((await p.http.post(`/api/knowledge/kb/${kbId}/learning-prior/refresh`, undefined, { token: stranger.accessToken })).status).toBe(
      404,
    );
  });
});
