/**
 * `POST /v1/agents:from-url` end to end through the gateway (spec 4.13, 3.3, 2.12) against a local fake YouTube
 * serving recorded shapes: the API-key lane and validation errors, a preview build followed by a real
 * EventSource to `ready` with a published public agent, handle dedup, Idempotency-Key rules, one build per
 * handle under concurrency, and a failed build that leaves nothing behind.
 */
import { randomUUID } from 'node:crypto';

import { cookingChannel } from '../../plugins/sources/youtube/test-fixtures/channel';
import { watchJob } from '../jobs/job-clients';
import { waitFor } from '../public-chat/public-support';
import { apiKey, fromUrl, poll, type ProvisioningWorld, settled, startProvisioningWorld } from './provisioning-support';

let w: ProvisioningWorld;
const chef = cookingChannel('fixturechef', 10, 'UCfixturechef0000000000a');
const baker = cookingChannel('bakerbob', 6, 'UCbakerbob00000000000000');
const empty = { handle: 'quietone', channelId: 'UCquietone00000000000000', title: 'Quiet One', videos: [] };
const solo = cookingChannel('soloist', 3, 'UCsoloist000000000000000');
const desk = cookingChannel('deskhelp', 3, 'UCdeskhelp00000000000000');
const club = cookingChannel('clubhouse', 3, 'UCclubhouse0000000000000');

beforeAll(async () => {
  w = await startProvisioningWorld([chef, baker, empty, solo, desk, club]);
});
afterAll(() => w?.close());

describe('the API-key lane and validation', () => {
  it('refuses a bad key (401), a key without agents:write (403 insufficient_scope) and invalid bodies (400)', async () => {
    const bad = await fromUrl(w, { url: 'https://www.youtube.com/@fixturechef' }, {}, 'ap_live_not-a-key');
    expect(bad.status).toBe(401);
    const readOnly = await apiKey(w.p, w.owner, ['contacts:read']);
    const scoped = await fromUrl(w, { url: 'https://www.youtube.com/@fixturechef' }, {}, readOnly);
    expect(scoped.status).toBe(403);
    expect(scoped.body.error).toBe('insufficient_scope');
    expect((await w.p.http.get('/v1/agents/builds/bld_x', { token: readOnly })).body.error).toBe('insufficient_scope');

    const missing = await fromUrl(w, { mode: 'preview' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('Validation Error');
    expect((await fromUrl(w, { url: 'https://www.youtube.com/@x', mode: 'fast' })).body.error).toBe('Validation Error');
    const unsupported = await fromUrl(w, { url: 'https://example.com/blog' });
    expect(unsupported.status).toBe(400);
    expect(unsupported.body.error).toBe('unsupported_url');
    expect((await fromUrl(w, { url: 'https://www.youtube.com/feed/trending' })).body.error).toBe('unsupported_url');
    const badHook = await fromUrl(w, { url: 'https://www.youtube.com/@fixturechef', deliver: { webhookUrl: 'http://hooks.example/x' } });
    expect(badHook.body.error).toBe('Validation Error');
    const badKey = await fromUrl(w, { url: 'https://www.youtube.com/@fixturechef' }, { 'idempotency-key': 'not-a-uuid' });
    expect(badKey.body.error).toBe('Validation Error');
    expect((await w.p.http.get('/v1/agents/builds/bld_missing', { token: w.key })).status).toBe(404);
  });
});

describe('a preview build', () => {
  it('streams phase-weighted progress to ready and publishes an agent with starter questions; a second request is answered at once', async () => {
    const r = await fromUrl(w, { url: 'https://m.youtube.com/@FixtureChef/videos', deliver: { stream: true } });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ status: 'queued', streamUrl: `/v1/agents/builds/${r.body.buildId}/events` });
    expect(r.body.buildId).toMatch(/^bld_/);
    expect(r.body.pollUrl).toBe(`/v1/agents/builds/${r.body.buildId}`);

    const stream = watchJob(w.p, w.key, r.body.buildId, r.body.streamUrl);
    await waitFor(async () => stream.events.some((e) => e.type !== 'progress'), 'terminal event', 60_000);
    stream.source.close();
    const last = stream.events[stream.events.length - 1];
    expect(last.type).toBe('done');
    expect(stream.events.slice(0, -1).every((e) => e.type === 'progress')).toBe(true);
    const progress = stream.events.map((e) => e.data.progress as number);
    expect([...progress].sort((a, b) => a - b)).toEqual(progress);
    for (const e of stream.events) expect(e.id).toBe(e.data.emittedAt);
    const steps = new Set(stream.events.map((e) => e.data.step));
    expect([...steps].filter((s) => s !== 'queued')).toEqual(
      expect.arrayContaining(['scraping', 'analyzing', 'provisioning', 'indexing', 'ready']),
    );

    const done = last.data;
    expect(done).toMatchObject({
      buildId: r.body.buildId,
      status: 'ready',
      step: 'ready',
      progress: 100,
      platform: 'youtube',
      channelTitle: 'Fixture Chef Kitchen',
    });
    expect(done.starterQuestions.length).toBeGreaterThanOrEqual(2);
    expect(done.error).toBeUndefined();
    expect((await poll(w, r.body.buildId)).body).toEqual(done);

    // Preview: the 8 most recent items, and captions fetched only for those.
    const captionCalls = w.youtube.requests.filter((q) => q.path.startsWith('/api/timedtext'));
    expect(captionCalls).toHaveLength(8);

    const agent = await w.p.http.get(`/api/public/agents/${done.agentSlug}`);
    expect(agent.status).toBe(200);
    expect(JSON.stringify(agent.body)).toContain('Fixture Chef Kitchen');

    const again = await fromUrl(w, { url: 'https://www.youtube.com/@fixturechef' });
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ buildId: r.body.buildId, status: 'ready', agentSlug: done.agentSlug });
  });
});

describe('intent', () => {
  // Spec 4.13: intent drives the default tool set. Support keeps update_contact on; community lists it disabled.
  it.each([
    ['support', 'deskhelp', [{ toolDefinitionId: 'update_contact', isEnabled: true }]],
    ['community', 'clubhouse', [{ toolDefinitionId: 'update_contact', isEnabled: false }]],
  ])('an intent of %s gives the agent its default tools', async (intent, handle, tools) => {
    const r = await fromUrl(w, { url: `https://www.youtube.com/@${handle}`, intent });
    expect(r.status).toBe(202);
    expect((await settled(w, r.body.buildId)).status).toBe('ready');
    const build = await w.p.store.repos.provisioningBuilds.find(r.body.buildId);
    const agent = await w.p.http.get(`/api/bots/${build!.agentId}`, { token: w.owner.accessToken });
    expect(agent.status).toBe(200);
    expect((agent.body.bot ?? agent.body).tools).toEqual(tools);
  });
});

describe('idempotency and one build per handle', () => {
  it('answers concurrent calls with one Idempotency-Key with one build; another body under that key is 409', async () => {
    const key = randomUUID();
    const calls = await Promise.all(
      Array.from({ length: 20 }, () => fromUrl(w, { url: 'https://www.youtube.com/@bakerbob' }, { 'idempotency-key': key })),
    );
    expect(calls.map((c) => c.status)).toEqual(calls.map(() => 202));
    expect(new Set(calls.map((c) => c.body.buildId)).size).toBe(1);
    const conflict = await fromUrl(w, { url: 'https://www.youtube.com/@bakerbob', mode: 'full' }, { 'idempotency-key': key });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error).toBe('Conflict');

    const others = await Promise.all(
      Array.from({ length: 10 }, () => fromUrl(w, { url: 'https://www.youtube.com/@BakerBob' }, { 'idempotency-key': randomUUID() })),
    );
    const ended = await settled(w, calls[0].body.buildId);
    expect(ended.status).toBe('ready');
    // Requests for the same handle follow the running build, or get its fresh agent once it is ready.
    expect(new Set(others.map((c) => c.body.buildId))).toEqual(new Set([calls[0].body.buildId]));
  });
});

describe('failures', () => {
  it('fails a channel without public content with private_or_empty and leaves no agent or knowledge base', async () => {
    const before = (await w.p.http.get('/api/knowledge/kb', { token: w.owner.accessToken })).body;
    const r = await fromUrl(w, { url: 'https://www.youtube.com/channel/UCquietone00000000000000' });
    const ended = await settled(w, r.body.buildId);
    expect(ended).toMatchObject({ status: 'failed', step: 'failed', error: { code: 'private_or_empty', retryable: false } });
    const after = (await w.p.http.get('/api/knowledge/kb', { token: w.owner.accessToken })).body;
    expect(JSON.stringify(after).length).toBe(JSON.stringify(before).length);
  });

  it('reports missing credits as a failed build event, not as a synchronous error', async () => {
    const org = w.owner.orgId;
    const wallets = w.p.store.repos.wallets;
    const balance = (await wallets.find(org))!.balanceUsd;
    await wallets.adjust(org, -balance, new Date().toISOString());
    try {
      const r = await fromUrl(w, { url: 'https://www.youtube.com/@soloist' });
      expect(r.status).toBe(202);
      const ended = await settled(w, r.body.buildId);
      expect(ended).toMatchObject({ status: 'failed', error: { code: 'insufficient_credits', retryable: false } });
    } finally {
      await wallets.adjust(org, balance, new Date().toISOString());
    }
  });
});
