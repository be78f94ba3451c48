/**
 * Transcripts in provisioning builds (issue 13) on the platform as `npm start` runs it, against a local fake
 * YouTube (YOUTUBE_MEDIA_URL on the fake) and a local fake OpenAI answering transcriptions at once: time to
 * ready of preview builds of channels with 2 caption-less videos out of 8 (200 KB of media each, transcribed),
 * against builds of channels whose 8 videos all have captions, alternating, in the same run. The fake provider
 * answers instantly, so the ratio is the platform's own cost of fetching, uploading and billing media, not a
 * real provider's transcription time (seconds per minute of audio).
 *
 *   npx tsx bench/provisioning-media.bench.ts     writes bench/results/provisioning-media.json
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { ScryptPasswordHasher } from '../adapters/crypto/scrypt.password-hasher';
import { startPlatform } from '../app/platform';
import { cookingChannel, type FakeChannel, youtubeUpstream } from '../plugins/sources/youtube/test-fixtures/channel';
import { FakeHttpServer } from '../test/fakes/fake-http-server';
import { FakeOpenAi } from '../test/fakes/fake-openai';
import { benchConfig } from './support/bench-config';
import { apiKeySession } from './support/bench-session';
import { percentile, summary } from './support/latency';

const BUILDS = Number(process.env.BENCH_BUILDS ?? 6);
const MEDIA_BYTES = 200_000;

const now = () => performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** cookingChannel leaves every third video without captions: those get media here, or captions in the baseline. */
function channel(i: number, withMedia: boolean): FakeChannel {
  const name = `${withMedia ? 'media' : 'capt'}chef`;
  const c = cookingChannel(`${name}${i}`, 8, `UC${name}${String(i).padStart(22 - name.length, '0')}`);
  c.videos = c.videos.map((v) =>
    v.captions
      ? v
      : withMedia
        ? { ...v, mediaBytes: MEDIA_BYTES }
        : { ...v, captions: [`Captions of ${v.title}.`, 'Thanks for watching.'] },
  );
  return c;
}

async function main() {
  const channels = Array.from({ length: BUILDS }, (_, i) => [channel(i, true), channel(i, false)]).flat();
  const youtube = new FakeHttpServer((req) => {
    const url = new URL(req.path, 'http://fake');
    const reply = youtubeUpstream(channels, url.pathname, url.searchParams);
    return reply && { status: reply.status ?? 200, headers: { 'content-type': reply.type }, body: reply.body };
  });
  const base = await youtube.start();
  const openai = new FakeOpenAi();
  openai.transcript = ' Fold gently, rest the dough, and bake until deep golden. ';
  await openai.start();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ap-bench-prov-media-'));
  const config = benchConfig(dataDir, {
    PLAN_AGENTS: '1000',
    PLAN_KNOWLEDGE_BASES: '1000',
    INITIAL_CREDITS_USD: '1000',
    YOUTUBE_BASE_URL: base,
    YOUTUBE_MEDIA_URL: `${base}/media`,
    OPENAI_API_KEY: 'sk-bench',
    OPENAI_BASE_URL: openai.baseURL,
    OPENAI_MAX_RETRIES: '0',
    EMBEDDINGS_PROVIDER: 'local',
    VISION_PROVIDER: 'none',
    TRANSCRIPTION_PROVIDER: 'openai',
    OUTBOUND_ALLOW: `${new URL(base).host},${new URL(openai.baseURL).host}`,
  });
  const platform = await startPlatform(config, { passwords: new ScryptPasswordHasher({ N: 1024, r: 8, p: 1 }) });
  const gw = platform.gatewayUrl;
  try {
    const { auth } = await apiKeySession(gw, 'bench-prov-media@example.com', ['agents:write']);
    const build = async (handle: string) => {
      const t0 = now();
      const res = await fetch(`${gw}/v1/agents:from-url`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `https://www.youtube.com/@${handle}`, mode: 'preview' }),
      });
      const { buildId } = (await res.json()) as { buildId: string };
      let event: { status: string; warning?: string } = { status: 'queued' };
      while (event.status !== 'ready' && event.status !== 'failed') {
        await sleep(10);
        event = (await (await fetch(`${gw}/v1/agents/builds/${buildId}`, { headers: auth })).json()) as typeof event;
      }
      if (event.status !== 'ready' || /transcribed/.test(event.warning ?? ''))
        throw new Error(`build ${buildId}: ${JSON.stringify(event)}`);
      return now() - t0;
    };
    const withMedia: number[] = [];
    const captioned: number[] = [];
    for (let i = 0; i < BUILDS; i++) {
      // alternating, so load from other processes falls on both sides alike
      withMedia.push(await build(`mediachef${i}`));
      captioned.push(await build(`captchef${i}`));
    }
    const transcriptions = openai.requests.filter((q) => q.path === '/v1/audio/transcriptions').length;
    const results = {
      name: 'provisioning-media',
      machine: { cpus: os.cpus().length, node: process.version, loadAverage: os.loadavg().map((l) => +l.toFixed(2)) },
      builds: BUILDS,
      mediaBytes: MEDIA_BYTES,
      transcriptionsPerBuild: +(transcriptions / BUILDS).toFixed(1),
      previewWithTranscriptsToReady: summary(withMedia),
      previewCaptionedToReady: summary(captioned),
      transcriptsVsCaptionsP50Ratio: +(percentile(withMedia, 50) / percentile(captioned, 50)).toFixed(2),
    };
    await mkdir(path.join(__dirname, 'results'), { recursive: true });
    await writeFile(path.join(__dirname, 'results', 'provisioning-media.json'), `${JSON.stringify(results, null, 2)}\n`);
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  } finally {
    await platform.close();
    await openai.close();
    await youtube.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
