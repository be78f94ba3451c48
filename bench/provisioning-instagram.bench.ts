/**
 * Provisioning from an Instagram URL (issue 13) on the platform as `npm start` runs it (one process, PGlite,
 * in-process queue and bus) against local fakes of Instagram and YouTube serving recorded shapes. Each figure
 * sits beside a baseline of the same run:
 *   1. Time to ready of Instagram preview builds (POST until the poll answers ready), against YouTube preview
 *      builds of the same size interleaved with them (same machine state).
 *   2. SSE first frame after the POST of an Instagram build, against a poll of the same build.
 *   3. A handle-dedup answer for another URL form of a built profile (`/<handle>/reels/`), against the build.
 *
 *   npx tsx bench/provisioning-instagram.bench.ts     writes bench/results/provisioning-instagram.json
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { ScryptPasswordHasher } from '../adapters/crypto/scrypt.password-hasher';
import { startPlatform } from '../app/platform';
import { bakerProfile, instagramUpstream } from '../plugins/sources/instagram/test-fixtures/profile';
import { cookingChannel, youtubeUpstream } from '../plugins/sources/youtube/test-fixtures/channel';
import { FakeHttpServer } from '../test/fakes/fake-http-server';
import { benchConfig } from './support/bench-config';
import { apiKeySession } from './support/bench-session';
import { percentile, summary } from './support/latency';
import { firstFrame } from './support/sse';

const BUILDS = Number(process.env.BENCH_BUILDS ?? 6);

const now = () => performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function fake(route: (path: string, query: URLSearchParams) => { status?: number; type: string; body: string } | undefined) {
  return new FakeHttpServer((req) => {
    const url = new URL(req.path, 'http://fake');
    const reply = route(url.pathname, url.searchParams);
    return reply && { status: reply.status ?? 200, headers: { 'content-type': reply.type }, body: reply.body };
  });
}

async function main() {
  const profiles = Array.from({ length: BUILDS }, (_, i) => bakerProfile(`benchbakes${i}`, 10, `17841${String(i).padStart(6, '0')}`));
  const channels = Array.from({ length: BUILDS }, (_, i) =>
    cookingChannel(`benchchef${i}`, 10, `UCbenchchef${String(i).padStart(13, '0')}`),
  );
  const instagram = fake((p, q) => instagramUpstream(profiles, p, q));
  const youtube = fake((p, q) => youtubeUpstream(channels, p, q));
  const igBase = await instagram.start();
  const ytBase = await youtube.start();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ap-bench-prov-ig-'));
  const config = benchConfig(dataDir, {
    PLAN_AGENTS: '1000',
    PLAN_KNOWLEDGE_BASES: '1000',
    INITIAL_CREDITS_USD: '1000',
    INSTAGRAM_BASE_URL: igBase,
    YOUTUBE_BASE_URL: ytBase,
    OUTBOUND_ALLOW: `${new URL(igBase).host},${new URL(ytBase).host}`,
  });
  const platform = await startPlatform(config, { passwords: new ScryptPasswordHasher({ N: 1024, r: 8, p: 1 }) });
  const gw = platform.gatewayUrl;
  try {
    const { auth } = await apiKeySession(gw, 'bench-prov-ig@example.com', ['agents:write']);
    const post = async (url: string) =>
      (await (
        await fetch(`${gw}/v1/agents:from-url`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ url, mode: 'preview' }),
        })
      ).json()) as { buildId: string; streamUrl: string; status: string };
    const pollStatus = async (buildId: string) =>
      ((await (await fetch(`${gw}/v1/agents/builds/${buildId}`, { headers: auth })).json()) as { status: string }).status;
    const untilEnded = async (buildId: string) => {
      let status = 'queued';
      while (status !== 'ready' && status !== 'failed') {
        await sleep(10);
        status = await pollStatus(buildId);
      }
      if (status !== 'ready') throw new Error(`build ${buildId} failed`);
    };

    const igReady: number[] = [];
    const ytReady: number[] = [];
    const sseFirst: number[] = [];
    const pollAfter: number[] = [];
    for (let i = 0; i < BUILDS; i++) {
      let t0 = now();
      const ig = await post(`https://www.instagram.com/benchbakes${i}/`);
      const t1 = now();
      const stream = await fetch(`${gw}${ig.streamUrl}`, { headers: { ...auth, accept: 'text/event-stream' } });
      sseFirst.push((await firstFrame(stream)) - t1);
      const t2 = now();
      await pollStatus(ig.buildId);
      pollAfter.push(now() - t2);
      await untilEnded(ig.buildId);
      igReady.push(now() - t0);

      t0 = now();
      const yt = await post(`https://www.youtube.com/@benchchef${i}`);
      await untilEnded(yt.buildId);
      ytReady.push(now() - t0);
    }
    const dedup: number[] = [];
    for (let i = 0; i < BUILDS; i++) {
      const t0 = now();
      if ((await post(`https://m.instagram.com/BenchBakes${i}/reels/`)).status !== 'ready') throw new Error('dedup did not answer ready');
      dedup.push(now() - t0);
    }

    const results = {
      name: 'provisioning-instagram',
      machine: { cpus: os.cpus().length, node: process.version },
      builds: BUILDS,
      instagramPreviewToReady: summary(igReady),
      youtubePreviewToReady: summary(ytReady),
      instagramVsYoutubeP50Ratio: +(percentile(igReady, 50) / percentile(ytReady, 50)).toFixed(2),
      instagramUpstreamRequestsPerBuild: +(instagram.requests.length / BUILDS).toFixed(1),
      youtubeUpstreamRequestsPerBuild: +(youtube.requests.length / BUILDS).toFixed(1),
      sseFirstFrameAfterPost: summary(sseFirst),
      pollAfterPost: summary(pollAfter),
      sseVsPollP50Ratio: +(percentile(sseFirst, 50) / percentile(pollAfter, 50)).toFixed(2),
      dedupAnswer: summary(dedup),
      readyVsDedupP50Ratio: +(percentile(igReady, 50) / percentile(dedup, 50)).toFixed(1),
    };
    await mkdir(path.join(__dirname, 'results'), { recursive: true });
    await writeFile(path.join(__dirname, 'results', 'provisioning-instagram.json'), `${JSON.stringify(results, null, 2)}\n`);
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  } finally {
    await platform.close();
    await instagram.close();
    await youtube.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
