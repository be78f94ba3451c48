/**
 * `POST /v1/agents:from-url` with Instagram URLs end to end through the gateway, against a local fake
 * Instagram serving recorded shapes of its web profile endpoint: a preview build streamed to `ready` whose
 * published agent answers from a caption, handle dedup across URL forms, a private profile and a throttled
 * one failing with their section-7 codes, and thin content reaching `ready` with a warning.
 */
import { randomUUID } from 'node:crypto';

import { bakerProfile, type FakeProfile } from '../../plugins/sources/instagram/test-fixtures/profile';
import { watchJob } from '../jobs/job-clients';
import { base, startConversation, waitFor } from '../public-chat/public-support';
import { fromUrl, poll, type ProvisioningWorld, settled, startProvisioningWorld } from './provisioning-support';

let w: ProvisioningWorld;
const baker = bakerProfile('fixturebakes', 10, '1784140571');
const hidden: FakeProfile = { ...bakerProfile('hiddenbakes', 4, '1784140572'), isPrivate: true };
const busy: FakeProfile = { ...bakerProfile('busybakes', 4, '1784140573'), throttled: true };
const tiny: FakeProfile = {
  handle: 'tinybakes',
  id: '1784140574',
  fullName: 'Tiny Bakes',
  biography: '',
  posts: [{ shortcode: 'Ctiny0000001', caption: 'Rye loaf, baked at 230 degrees for forty minutes.' }],
};

beforeAll(async () => {
  w = await startProvisioningWorld([], {}, [baker, hidden, busy, tiny]);
});
afterAll(() => w?.close());

const profileCalls = (handle: string) =>
  w.instagram.requests.filter((q) => q.path === `/api/v1/users/web_profile_info/?username=${handle}`).length;

describe('an Instagram preview build', () => {
  it('streams to ready and publishes an agent that answers from a caption; other URL forms of the handle get it at once', async () => {
    const r = await fromUrl(w, { url: 'https://m.instagram.com/FixtureBakes/reels/?igshid=abc', deliver: { stream: true } });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ status: 'queued', buildId: expect.stringMatching(/^bld_/) });

    const stream = watchJob(w.p, w.key, r.body.buildId, r.body.streamUrl);
    await waitFor(async () => stream.events.some((e) => e.type !== 'progress'), 'terminal event', 60_000);
    stream.source.close();
    const last = stream.events[stream.events.length - 1];
    expect(last.type).toBe('done');
    const progress = stream.events.map((e) => e.data.progress as number);
    expect([...progress].sort((a, b) => a - b)).toEqual(progress);
    expect([...new Set(stream.events.map((e) => e.data.step))]).toEqual(
      expect.arrayContaining(['scraping', 'analyzing', 'provisioning', 'indexing', 'ready']),
    );
    const done = last.data;
    expect(done).toMatchObject({ status: 'ready', progress: 100, platform: 'instagram', channelTitle: 'Fixture Bakes' });
    expect(done.warning).toBeUndefined();
    // Offline analysis from the captions: starter questions name the posts.
    expect(done.starterQuestions.length).toBeGreaterThanOrEqual(2);
    expect(done.starterQuestions[0]).toContain('Baking sourdough starter today');
    expect((await poll(w, r.body.buildId)).body).toEqual(done);
    // Preview: one profile read (captions come with it), 8 items (7 posts and the bio).
    expect(profileCalls('fixturebakes')).toBe(1);
    const kb = await w.p.http.get(`/api/knowledge/kb`, { token: w.owner.accessToken });
    expect(JSON.stringify(kb.body)).toContain('Fixture Bakes');

    const agent = await w.p.http.get(base(done.agentSlug));
    expect(agent.status).toBe(200);
    const visitor = randomUUID();
    const conversationId = await startConversation(w.p, done.agentSlug, visitor);
    const answer = await w.p.http.post(`${base(done.agentSlug)}/chat`, {
      message: 'What is the trick for croissant lamination?',
      conversationId,
      anonymousId: visitor,
    });
    expect(answer.status).toBe(200);
    expect(answer.body.response).toMatch(/croissant lamination: hydrate the dough to 75%/);

    for (const url of ['instagram.com/fixturebakes', 'https://www.instagram.com/FixtureBakes/p/Cfix0000001/']) {
      const again = await fromUrl(w, { url });
      expect({ url, body: again.body }).toEqual({
        url,
        body: expect.objectContaining({ buildId: r.body.buildId, status: 'ready', agentSlug: done.agentSlug }),
      });
    }
    expect(profileCalls('fixturebakes')).toBe(1);
  });

  it('reaches ready with a thin-content warning when a profile has little to learn from', async () => {
    const r = await fromUrl(w, { url: 'https://www.instagram.com/tinybakes/' });
    const ended = await settled(w, r.body.buildId);
    expect(ended).toMatchObject({ status: 'ready', platform: 'instagram', warning: expect.stringMatching(/little content/i) });
  });
});

describe('Instagram failures', () => {
  it('fails a private profile with private_or_empty (not retryable) and leaves no knowledge base behind', async () => {
    const before = (await w.p.http.get('/api/knowledge/kb', { token: w.owner.accessToken })).body;
    const r = await fromUrl(w, { url: 'https://www.instagram.com/hiddenbakes' });
    expect(r.status).toBe(202);
    const ended = await settled(w, r.body.buildId);
    expect(ended).toMatchObject({
      status: 'failed',
      step: 'failed',
      error: { code: 'private_or_empty', retryable: false, message: expect.stringMatching(/private/) },
    });
    const after = (await w.p.http.get('/api/knowledge/kb', { token: w.owner.accessToken })).body;
    expect(after).toEqual(before);
  });

  it('fails an unknown profile with private_or_empty and a throttled one with rate_limited (retryable)', async () => {
    const unknown = await settled(w, (await fromUrl(w, { url: 'https://www.instagram.com/nobodybakes' })).body.buildId);
    expect(unknown).toMatchObject({ status: 'failed', error: { code: 'private_or_empty', retryable: false } });
    const throttled = await settled(w, (await fromUrl(w, { url: 'https://www.instagram.com/busybakes' })).body.buildId);
    expect(throttled).toMatchObject({ status: 'failed', error: { code: 'rate_limited', retryable: true } });
  });

  it('refuses Instagram pages that are not a profile or a post synchronously with unsupported_url', async () => {
    const r = await fromUrl(w, { url: 'https://www.instagram.com/explore/tags/bread/' });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('unsupported_url');
  });
});
