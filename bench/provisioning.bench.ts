/**
 * Provisioning from a URL (spec 4.13) on the platform as `npm start` runs it (one process, PGlite, in-process
 * queue and bus) against a local fake YouTube serving recorded shapes, each figure beside a baseline of the
 * same run:
 *   1. Time to ready of preview builds (POST until the poll answers ready), against a handle-dedup answer.
 *   2. SSE first frame after the POST (connect to the streamUrl until the replayed state arrives), against a
 *      poll of the same build.
 *   3. 100 concurrent POSTs with one Idempotency-Key: distinct builds (must be 1) and latency, against 100
 *      concurrent GET /v1/me with the same key.
 *   4. Webhook delivery: N builds (4 at a time) with `deliver.webhookUrl` to a local HTTPS receiver that fails the
 *      first attempt of every other delivery (503); delivered phase webhooks against the expected count (7 phases
 *      per build), in order, and the deliveries' attempts, all from the same run (backoff shortened to 50 ms).
 *
 *   npx tsx bench/provisioning.bench.ts     writes bench/results/provisioning.json
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { ScryptPasswordHasher } from '../adapters/crypto/scrypt.password-hasher';
import { startPlatform } from '../app/platform';
import { cookingChannel, youtubeUpstream } from '../plugins/sources/youtube/test-fixtures/channel';
import { FakeHttpServer } from '../test/fakes/fake-http-server';
import { HttpsWebhookReceiver, WEBHOOK_RECEIVER_CA_FILE } from '../test/fakes/https-webhook-receiver';
import { benchConfig } from './support/bench-config';
import { apiKeySession } from './support/bench-session';
import { percentile, summary } from './support/latency';
import { firstFrame } from './support/sse';

const BUILDS = Number(process.env.BENCH_BUILDS ?? 8);
const CONCURRENT = Number(process.env.BENCH_CONCURRENT ?? 100);
const HOOKED_BUILDS = Number(process.env.BENCH_WEBHOOK_BUILDS ?? 24);
const PHASES = ['queued', 'detecting', 'scraping', 'analyzing', 'provisioning', 'indexing', 'ready'];

const now = () => performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const channels = Array.from({ length: BUILDS * 2 + 2 + HOOKED_BUILDS }, (_, i) =>
    cookingChannel(`benchchef${i}`, 10, `UCbenchchef${String(i).padStart(13, '0')}`),
  );
  const youtube = new FakeHttpServer((req) => {
    const url = new URL(req.path, 'http://fake');
    const reply = youtubeUpstream(channels, url.pathname, url.searchParams);
    return reply && { status: reply.status ?? 200, headers: { 'content-type': reply.type }, body: reply.body };
  });
  const base = await youtube.start();
  // Every other delivery (counted across the run) fails its first attempt.
  let deliveriesSeen = 0;
  const receiver = new HttpsWebhookReceiver((attempt) => (attempt === 1 && deliveriesSeen++ % 2 === 0 ? 503 : 200));
  const hook = await receiver.start();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ap-bench-prov-'));
  const config = benchConfig(dataDir, {
    PLAN_AGENTS: '1000',
    PLAN_KNOWLEDGE_BASES: '1000',
    INITIAL_CREDITS_USD: '1000',
    YOUTUBE_BASE_URL: base,
    OUTBOUND_ALLOW: `${new URL(base).host},127.0.0.1:${hook.port}`,
    OUTBOUND_CA_FILE: WEBHOOK_RECEIVER_CA_FILE,
    WEBHOOK_RETRY_BACKOFF_MS: '50',
  });
  const platform = await startPlatform(config, { passwords: new ScryptPasswordHasher({ N: 1024, r: 8, p: 1 }) });
  const gw = platform.gatewayUrl;
  try {
    const { auth, accessToken } = await apiKeySession(gw, 'bench-prov@example.com', ['agents:write']);
    const post = (url: string, headers: Record<string, string> = {}) =>
      fetch(`${gw}/v1/agents:from-url`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ url, mode: 'preview' }),
      });
    const pollStatus = async (buildId: string) =>
      ((await (await fetch(`${gw}/v1/agents/builds/${buildId}`, { headers: auth })).json()) as { status: string }).status;

    // 1 and 2: preview builds, one at a time; SSE first frame and a poll right after each POST.
    const toReady: number[] = [];
    const sseFirst: number[] = [];
    const pollAfter: number[] = [];
    for (let i = 0; i < BUILDS; i++) {
      const t0 = now();
      const res = await post(`https://www.youtube.com/@benchchef${i}`);
      const body = (await res.json()) as { buildId: string; streamUrl: string };
      const t1 = now();
      const stream = await fetch(`${gw}${body.streamUrl}`, { headers: { ...auth, accept: 'text/event-stream' } });
      sseFirst.push((await firstFrame(stream)) - t1);
      const t2 = now();
      await pollStatus(body.buildId);
      pollAfter.push(now() - t2);
      let status = 'queued';
      while (status !== 'ready' && status !== 'failed') {
        await sleep(10);
        status = await pollStatus(body.buildId);
      }
      if (status !== 'ready') throw new Error(`build ${body.buildId} failed`);
      toReady.push(now() - t0);
    }
    const dedup: number[] = [];
    for (let i = 0; i < BUILDS; i++) {
      const t0 = now();
      const r = (await (await post(`https://www.youtube.com/@benchchef${i}`)).json()) as { status: string };
      if (r.status !== 'ready') throw new Error('dedup did not answer ready');
      dedup.push(now() - t0);
    }

    // 3: 100 concurrent POSTs with one Idempotency-Key, against 100 concurrent GET /v1/me.
    const idem = randomUUID();
    const idemMs: number[] = [];
    const ids = await Promise.all(
      Array.from({ length: CONCURRENT }, async () => {
        const t = now();
        const r = await post(`https://www.youtube.com/@benchchef${BUILDS}`, { 'idempotency-key': idem });
        const b = (await r.json()) as { buildId: string };
        idemMs.push(now() - t);
        return b.buildId;
      }),
    );
    const distinct = new Set(ids).size;
    const meMs: number[] = [];
    await Promise.all(
      Array.from({ length: CONCURRENT }, async () => {
        const t = now();
        await (await fetch(`${gw}/v1/me`, { headers: auth })).text();
        meMs.push(now() - t);
      }),
    );
    const keysMs: number[] = [];
    const sameHandle = await Promise.all(
      Array.from({ length: CONCURRENT }, async () => {
        const t = now();
        const r = await post(`https://www.youtube.com/@benchchef${BUILDS + 1}`, { 'idempotency-key': randomUUID() });
        const b = (await r.json()) as { buildId: string };
        keysMs.push(now() - t);
        return b.buildId;
      }),
    );

    // 4: phase webhooks of N builds, 4 at a time, to a receiver failing every other first attempt.
    const hooked: string[] = [];
    for (let i = 0; i < HOOKED_BUILDS; i += 4) {
      const batch = Array.from({ length: Math.min(4, HOOKED_BUILDS - i) }, (_, j) => BUILDS * 2 + 2 + i + j);
      hooked.push(
        ...(await Promise.all(
          batch.map(async (n) => {
            const r = await fetch(`${gw}/v1/agents:from-url`, {
              method: 'POST',
              headers: { ...auth, 'content-type': 'application/json' },
              body: JSON.stringify({
                url: `https://www.youtube.com/@benchchef${n}`,
                mode: 'preview',
                deliver: { webhookUrl: `${hook.url}/hooks` },
              }),
            });
            const { buildId } = (await r.json()) as { buildId: string };
            while (!['ready', 'failed'].includes(await pollStatus(buildId))) await sleep(20);
            return buildId;
          }),
        )),
      );
    }
    type Delivery = { event: string; status: string; attempts: number };
    const deliveriesOf = async (buildId: string) =>
      (
        (await (
          await fetch(`${gw}/api/jobs/${buildId}/webhook-deliveries`, { headers: { authorization: `Bearer ${accessToken}` } })
        ).json()) as { deliveries: Delivery[] }
      ).deliveries;
    const settleBy = Date.now() + 120_000;
    let rows: Delivery[][] = [];
    for (;;) {
      rows = await Promise.all(hooked.map(deliveriesOf));
      if (rows.flat().every((d) => d.status !== 'pending') || Date.now() > settleBy) break;
      await sleep(200);
    }
    const expected = hooked.length * PHASES.length;
    const ok = receiver.received
      .filter((q) => q.status === 200)
      .map((q) => JSON.parse(q.body.toString('utf8')) as { buildId: string; status: string });
    const receivedInOrder = hooked.filter(
      (id) =>
        ok
          .filter((e) => e.buildId === id)
          .map((e) => e.status)
          .join() === PHASES.join(),
    ).length;
    const delivered = rows.flat().filter((d) => d.status === 'delivered');
    const webhooks = {
      builds: hooked.length,
      expected,
      recordedDelivered: delivered.length,
      receivedOk: ok.length,
      deliveredRatio: +(delivered.length / expected).toFixed(4),
      buildsReceivedAllPhasesInOrder: receivedInOrder,
      firstAttemptsFailed: receiver.received.filter((q) => q.status === 503).length,
      deliveriesRetried: delivered.filter((d) => d.attempts > 1).length,
    };

    const results = {
      name: 'provisioning',
      machine: { cpus: os.cpus().length, node: process.version },
      previewToReady: summary(toReady),
      dedupAnswer: summary(dedup),
      readyVsDedupP50Ratio: +(percentile(toReady, 50) / percentile(dedup, 50)).toFixed(1),
      sseFirstFrameAfterPost: summary(sseFirst),
      pollAfterPost: summary(pollAfter),
      sseVsPollP50Ratio: +(percentile(sseFirst, 50) / percentile(pollAfter, 50)).toFixed(2),
      idempotency: {
        calls: CONCURRENT,
        distinctBuilds: distinct,
        latency: summary(idemMs),
        baselineGetMe: summary(meMs),
        p50Ratio: +(percentile(idemMs, 50) / percentile(meMs, 50)).toFixed(2),
      },
      oneHandleDifferentKeys: { calls: CONCURRENT, distinctBuilds: new Set(sameHandle).size, latency: summary(keysMs) },
      webhooks,
    };
    await mkdir(path.join(__dirname, 'results'), { recursive: true });
    await writeFile(path.join(__dirname, 'results', 'provisioning.json'), `${JSON.stringify(results, null, 2)}\n`);
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  } finally {
    await platform.close();
    await youtube.close();
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
