/**
 * Transcripts of media without captions (issue 13), end to end against the fake YouTube and Instagram and a
 * fake OpenAI serving `/v1/audio/transcriptions`: a caption-less video (YOUTUBE_MEDIA_URL on the fake) and a
 * caption-less reel (`video_url`) are fetched through the SSRF-guarded fetcher, transcribed, billed (kind
 * `provisioning`, priced from the catalogue) and searchable in the built agent's knowledge base; media over
 * the size bound and a provider error leave the build ready with a warning; with no transcription model
 * configured nothing is fetched or transcribed.
 */
import { type FakeProfile } from '../../plugins/sources/instagram/test-fixtures/profile';
import { type FakeChannel, type FakeVideo } from '../../plugins/sources/youtube/test-fixtures/channel';
import { FakeOpenAi, openAiErrorBody } from '../fakes/fake-openai';
import { fromUrl, type ProvisioningWorld, settled, startProvisioningWorld } from './provisioning-support';

const WHISPER = 'openai/whisper-1';

const video = (id: string, title: string, description: string, extra: Partial<FakeVideo> = {}): FakeVideo => ({
  id,
  title,
  description,
  ...extra,
});
const captions = (topic: string) => [`Today we cook ${topic}.`, `Good ${topic} needs patience and fresh ingredients.`];

/** Two captioned videos, one caption-less with small media, one caption-less with media over the size bound. */
const voiceChef: FakeChannel = {
  handle: 'voicechef',
  channelId: 'UCvoicechef0000000000000',
  title: 'Voice Chef',
  videos: [
    video('vc000000001', 'Weeknight lentil soup', 'Lentil soup in thirty minutes.', { captions: captions('lentil soup') }),
    video('vc000000002', 'Risotto without stirring', 'A relaxed risotto method.', { mediaBytes: 2000 }),
    video('vc000000003', 'A long bread masterclass', 'Three hours of bread baking.', { mediaBytes: 50_000 }),
    video('vc000000004', 'Crispy roast potatoes', 'Parboil, rough up, roast hot.', { captions: captions('roast potatoes') }),
  ],
};
const flakyChef: FakeChannel = {
  handle: 'flakychef',
  channelId: 'UCflakychef0000000000000',
  title: 'Flaky Chef',
  videos: [
    video('fc000000001', 'Pancakes for a crowd', 'Fluffy pancakes, scaled up.', { captions: captions('pancakes') }),
    video('fc000000002', 'Dumpling folding basics', 'Pleats, crescents and purses for dumplings.', { mediaBytes: 1500 }),
  ],
};
/** Three caption-less videos: more than a preview transcribes here (PROVISIONING_PREVIEW_TRANSCRIPTIONS=2). */
const chattyChef: FakeChannel = {
  handle: 'chattychef',
  channelId: 'UCchattychef000000000000',
  title: 'Chatty Chef',
  videos: ['Braised leeks', 'Green shakshuka', 'Miso glazed carrots'].map((title, i) =>
    video(`cc00000000${i + 1}`, title, `${title}, explained while cooking.`, { mediaBytes: 1200 }),
  ),
};
const reelBaker: FakeProfile = {
  handle: 'reelbaker',
  id: '1784140599',
  fullName: 'Reel Baker',
  biography: 'Bread reels from a tiny kitchen.',
  posts: [
    { shortcode: 'Creel0000001', caption: 'Focaccia day!\nDimple the dough with oiled fingers before baking.' },
    { shortcode: 'Creel0000002', caption: '', isVideo: true, mediaBytes: 1800 },
    { shortcode: 'Creel0000003', caption: 'Rye crackers\nRoll them thin and bake until snappy.' },
  ],
};

const fake = new FakeOpenAi();

const transcriptionCalls = () => fake.requests.filter((q) => q.path === '/v1/audio/transcriptions');
const provisioningEvents = async (w: ProvisioningWorld) =>
  ((await w.p.http.get('/api/billing/wallet', { token: w.owner.accessToken })).body.events as any[]).filter(
    (e) => e.kind === 'provisioning',
  );
const kbOf = async (w: ProvisioningWorld, buildId: string) => (await w.p.store.repos.provisioningBuilds.find(buildId))!.knowledgeBaseId!;
const search = (w: ProvisioningWorld, kbId: string, query: string) =>
  w.p.http.post('/api/knowledge/search', { knowledgeBaseIds: [kbId], query }, { token: w.owner.accessToken });

describe('with a transcription model', () => {
  let w: ProvisioningWorld;
  beforeAll(async () => {
    await fake.start();
    w = await startProvisioningWorld(
      [voiceChef, flakyChef, chattyChef, { ...chattyChef, handle: 'chattierchef', channelId: 'UCchattierchef0000000000' }],
      {
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: fake.baseURL,
        OPENAI_MAX_RETRIES: '0',
        EMBEDDINGS_PROVIDER: 'local',
        VISION_PROVIDER: 'none',
        TRANSCRIPTION_PROVIDER: 'openai',
        YOUTUBE_MEDIA_URL: '/media',
        PROVISIONING_MEDIA_MAX_BYTES: '10000',
        PROVISIONING_PREVIEW_TRANSCRIPTIONS: '2',
        OUTBOUND_ALLOW: new URL(fake.baseURL).host,
      },
      [reelBaker],
    );
  }, 300_000);
  afterAll(async () => {
    await w?.close();
    await fake.close();
  });

  it('transcribes a caption-less video, bills it at the catalogue price and indexes the transcript; oversized media is skipped with a warning', async () => {
    // A catalogue price for the transcription model (the bundled snapshot lists whisper-1 at 0 per token).
    const whisper = (await w.p.store.repos.models.findById(WHISPER))!;
    await w.p.store.repos.models.upsert([{ ...whisper, completionPricePerToken: 0.0001, isFree: false }]);
    fake.transcript = ' The secret of a relaxed risotto is toasting the carnaroli rice in butter first. ';

    const r = await fromUrl(w, { url: 'https://www.youtube.com/@voicechef' });
    expect(r.status).toBe(202);
    const done = await settled(w, r.body.buildId);
    expect(done.status).toBe('ready');
    // The oversized media was refused by the fetcher's size bound: never sent to the provider.
    expect(done.warning).toMatch(/1 of 2 item\(s\) without captions could not be transcribed \(vc000000003: /);
    expect(w.youtube.requests.filter((q) => q.path.startsWith('/media/')).map((q) => q.path)).toEqual(
      expect.arrayContaining(['/media/vc000000002', '/media/vc000000003']),
    );
    const calls = transcriptionCalls();
    expect(calls).toHaveLength(1);
    expect(calls[0].body.toString('latin1')).toContain('filename="vc000000002.mp3"');

    const kbId = await kbOf(w, r.body.buildId);
    const found = await search(w, kbId, 'toasting the carnaroli rice');
    expect(found.status).toBe(200);
    expect(found.body.results[0].content).toContain('toasting the carnaroli rice in butter');
    // The video over the bound is indexed from its title and description.
    const fallback = await search(w, kbId, 'Three hours of bread baking');
    expect(fallback.body.results[0].content).toContain('Three hours of bread baking');

    const billed = (await provisioningEvents(w)).filter((e) => e.model === WHISPER);
    expect(billed).toHaveLength(1);
    const tokens = Math.ceil(fake.transcript.trim().length / 4);
    expect(billed[0]).toMatchObject({ completionTokens: tokens, providerCostUsd: expect.closeTo(tokens * 0.0001, 6) });
    expect(billed[0].costUsd).toBeGreaterThan(billed[0].providerCostUsd);
  });

  it('transcribes a caption-less Instagram reel from its video_url', async () => {
    fake.transcript = ' Shape the baguette with three folds and a gentle roll. ';
    const before = transcriptionCalls().length;
    const r = await fromUrl(w, { url: 'https://www.instagram.com/reelbaker/' });
    const done = await settled(w, r.body.buildId);
    expect(done).toMatchObject({ status: 'ready', platform: 'instagram' });
    expect(done.warning ?? '').not.toContain('transcribed');
    expect(transcriptionCalls()).toHaveLength(before + 1);
    expect(transcriptionCalls()[before].body.toString('latin1')).toContain('filename="Creel0000002.mp4"');
    const found = await search(w, await kbOf(w, r.body.buildId), 'baguette three folds');
    expect(found.body.results[0].content).toContain('Shape the baguette with three folds');
  });

  it('ends ready with a warning when the provider fails, indexing the title and description instead', async () => {
    fake.replyOnce({ status: 500, json: openAiErrorBody('The server had an error', 'server_error') });
    const before = transcriptionCalls().length;
    const r = await fromUrl(w, { url: 'https://www.youtube.com/@flakychef' });
    const done = await settled(w, r.body.buildId);
    expect(done.status).toBe('ready');
    expect(transcriptionCalls()).toHaveLength(before + 1);
    expect(done.warning).toMatch(/1 of 1 item\(s\) without captions could not be transcribed \(fc000000002: /);
    const found = await search(w, await kbOf(w, r.body.buildId), 'dumplings pleats crescents');
    expect(found.body.results[0].content).toContain('Pleats, crescents and purses for dumplings');
  });

  it('transcribes at most PROVISIONING_PREVIEW_TRANSCRIPTIONS media in preview, and more in full mode', async () => {
    fake.transcript = ' Low heat and patience make vegetables sweet. ';
    const before = transcriptionCalls().length;
    const preview = await settled(w, (await fromUrl(w, { url: 'https://www.youtube.com/@chattychef' })).body.buildId);
    expect(preview.status).toBe('ready');
    expect(transcriptionCalls()).toHaveLength(before + 2);
    expect(preview.warning).toContain('1 more item(s) without captions were not transcribed (limit 2)');
    const full = await settled(w, (await fromUrl(w, { url: 'https://www.youtube.com/@chattierchef', mode: 'full' })).body.buildId);
    expect(full.status).toBe('ready');
    expect(transcriptionCalls()).toHaveLength(before + 5);
    expect(full.warning ?? '').not.toContain('transcribed');
  });
});

describe('without a transcription model', () => {
  let w: ProvisioningWorld;
  const quiet = new FakeOpenAi();
  beforeAll(async () => {
    await quiet.start();
    w = await startProvisioningWorld([{ ...voiceChef, handle: 'mutechef', channelId: 'UCmutechef00000000000000' }], {
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: quiet.baseURL,
      EMBEDDINGS_PROVIDER: 'local',
      VISION_PROVIDER: 'none',
      TRANSCRIPTION_PROVIDER: 'none',
      YOUTUBE_MEDIA_URL: '/media',
      OUTBOUND_ALLOW: new URL(quiet.baseURL).host,
    });
  }, 300_000);
  afterAll(async () => {
    await w?.close();
    await quiet.close();
  });

  it('fetches and transcribes nothing; the build is ready with a warning and the descriptions indexed', async () => {
    const r = await fromUrl(w, { url: 'https://www.youtube.com/@mutechef' });
    const done = await settled(w, r.body.buildId);
    expect(done.status).toBe('ready');
    expect(done.warning).toContain('2 item(s) have no captions and no transcription model is configured');
    expect(quiet.requests.filter((q) => q.path === '/v1/audio/transcriptions')).toHaveLength(0);
    expect(w.youtube.requests.filter((q) => q.path.startsWith('/media/'))).toHaveLength(0);
    const found = await search(w, await kbOf(w, r.body.buildId), 'relaxed risotto method');
    expect(found.body.results[0].content).toContain('A relaxed risotto method');
  });
});
