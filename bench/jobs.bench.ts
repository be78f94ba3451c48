/**
 * The job contract under measurement, on the platform as `npm start` runs it (one process, PGlite, in-process
 * queue and bus), each figure next to a baseline from the same run:
 *   1. SSE first frame: connect to /api/jobs/:id/events through the gateway until the replayed state arrives,
 *      against polling GET /api/jobs/:id (same gateway, same job).
 *   2. Event latency: a worker-side progress report until an open SSE client holds the frame, against the bare
 *      in-process event bus (publish until the subscriber runs).
 *   3. Background cost: p99 of a light request (GET /api/auth/me, autocannon in a child process) while 500
 *      webhook deliveries run against a local HTTPS receiver that fails every first attempt, against the same
 *      request with nothing in the background.
 *
 *   npx tsx bench/jobs.bench.ts     writes bench/results/jobs.json
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { ScryptPasswordHasher } from '../adapters/crypto/scrypt.password-hasher';
import { InProcessEventBus } from '../adapters/memory/in-process.event-bus';
import { jobTracker } from '../app/jobs-services';
import { startPlatform } from '../app/platform';
import { scheduleWebhook } from '../core/webhooks/webhooks';
import { HttpsWebhookReceiver, WEBHOOK_RECEIVER_CA_FILE } from '../test/fakes/https-webhook-receiver';
import { benchConfig } from './support/bench-config';
import { summary } from './support/latency';
import { firstFrame } from './support/sse';

const ROOT = path.resolve(__dirname, '..');
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const WEBHOOKS = Number(process.env.BENCH_WEBHOOKS ?? 500);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

const now = () => performance.now();

interface Load {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
}

function autocannon(url: string, headers: Record<string, string>, seconds: number): Promise<Load> {
  const args = [path.join(ROOT, 'node_modules/autocannon/autocannon.js'), '-c', '4', '-d', String(seconds), '-j'];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}=${v}`);
  args.push(url);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error('autocannon failed'));
      const r = JSON.parse(out) as { requests: { average: number }; latency: { p50: number; p99: number }; non2xx: number };
      resolve({ requestsPerSecond: r.requests.average, p50Ms: r.latency.p50, p99Ms: r.latency.p99, non2xx: r.non2xx });
    });
  });
}

async function main() {
  const receiver = new HttpsWebhookReceiver((attempt) => (attempt === 1 ? 503 : 200));
  const hook = await receiver.start();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ap-bench-jobs-'));
  const config = benchConfig(dataDir, {
    OUTBOUND_ALLOW: `127.0.0.1:${hook.port}`,
    OUTBOUND_CA_FILE: WEBHOOK_RECEIVER_CA_FILE,
    WEBHOOK_RETRY_BACKOFF_MS: '200',
  });
  const platform = await startPlatform(config, { passwords: new ScryptPasswordHasher({ N: 1024, r: 8, p: 1 }) });
  try {
    const reg = await fetch(`${platform.gatewayUrl}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bench-jobs@example.com', password: 'bench-password' }),
    });
    const session = (await reg.json()) as { data: { accessToken: string; user: { organizations: { id: string }[] } } };
    const auth = { authorization: `Bearer ${session.data.accessToken}` };
    const orgId = session.data.user.organizations[0].id;
    const tracker = jobTracker(platform.infrastructure);

    // 1. First SSE frame vs a poll of the same job.
    const sse: number[] = [];
    const poll: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const jobId = `bench-${randomUUID()}`;
      await tracker.start({ id: jobId, organizationId: orgId, kind: 'bench' });
      await tracker.progress(jobId, { progress: 10, step: 'working' });
      let t = now();
      const r = await fetch(`${platform.gatewayUrl}/api/jobs/${jobId}`, { headers: auth });
      await r.json();
      poll.push(now() - t);
      t = now();
      const stream = await fetch(`${platform.gatewayUrl}/api/jobs/${jobId}/events`, { headers: { ...auth, accept: 'text/event-stream' } });
      sse.push((await firstFrame(stream)) - t);
    }

    // 2. Report-to-client latency on one open stream vs the bare in-process bus.
    const jobId = `bench-${randomUUID()}`;
    await tracker.start({ id: jobId, organizationId: orgId, kind: 'bench' });
    const stream = await fetch(`${platform.gatewayUrl}/api/jobs/${jobId}/events`, { headers: { ...auth, accept: 'text/event-stream' } });
    const reader = stream.body!.getReader();
    const decoder = new TextDecoder();
    let buffered = '';
    const waitForText = async (needle: string) => {
      while (!buffered.includes(needle)) {
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        buffered += decoder.decode(value, { stream: true });
      }
      buffered = buffered.slice(buffered.indexOf(needle) + needle.length);
      return now();
    };
    await waitForText('\ndata: ');
    const eventLatency: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const t = now();
      await tracker.progress(jobId, { detail: `tick ${i}` });
      eventLatency.push((await waitForText(`"tick ${i}"`)) - t);
    }
    await reader.cancel();
    const bus = new InProcessEventBus();
    const busLatency: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      let resolve!: (at: number) => void;
      const got = new Promise<number>((r) => (resolve = r));
      const sub = await bus.subscribe(`bench.${i}`, () => resolve(now()));
      const start = now();
      await bus.publish(`bench.${i}`, { i });
      busLatency.push((await got) - start);
      await sub.close();
    }
    await bus.close();

    // 3. A light request, idle and while webhooks are delivered.
    const me = `${platform.gatewayUrl}/api/auth/me`;
    await autocannon(me, auth, 1); // warm-up
    const idle = await autocannon(me, auth, SECONDS);
    const hookJob = `bench-${randomUUID()}`;
    await tracker.start({ id: hookJob, organizationId: orgId, kind: 'bench' });
    const infra = platform.infrastructure;
    // The load runs while the deliveries are queued and sent.
    const busyRun = autocannon(me, auth, SECONDS);
    const scheduledAt = now();
    for (let i = 0; i < WEBHOOKS; i++) {
      await scheduleWebhook(infra, { organizationId: orgId, jobId: hookJob, url: `${hook.url}/bench`, event: 'completed', body: { i } });
    }
    const scheduleMs = now() - scheduledAt;
    const busy = await busyRun;
    const deadline = Date.now() + 120_000;
    let delivered = 0;
    while (Date.now() < deadline) {
      const [{ n }] = await infra.db.knex('webhook_deliveries').where({ job_id: hookJob, status: 'delivered' }).count({ n: '*' });
      delivered = Number(n);
      if (delivered === WEBHOOKS) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const drainedMs = now() - scheduledAt;

    const result = {
      date: new Date().toISOString(),
      node: process.version,
      cpus: os.cpus().length,
      loadAverageAtEnd: os.loadavg().map((l) => +l.toFixed(2)),
      samples: SAMPLES,
      sseFirstFrame: { figure: summary(sse), baseline: { what: 'GET /api/jobs/:id through the gateway', ...summary(poll) } },
      eventLatency: {
        figure: { what: 'JobTracker.progress until the SSE client holds the frame', ...summary(eventLatency) },
        baseline: { what: 'in-process event bus publish until the subscriber runs', ...summary(busLatency) },
      },
      lightRequestWhileWebhooks: {
        endpoint: 'GET /api/auth/me, autocannon 4 connections',
        webhooks: WEBHOOKS,
        receiver: 'local HTTPS, every first attempt 503, in this process',
        scheduleMs: +scheduleMs.toFixed(0),
        delivered,
        allDeliveredAfterMs: delivered === WEBHOOKS ? +drainedMs.toFixed(0) : null,
        figure: busy,
        baseline: { what: 'same request, nothing in the background', ...idle },
      },
      note: 'One process as in `npm start`: gateway, api, worker, the embedded database and the receiver share its two cores.',
    };
    await mkdir(path.join(ROOT, 'bench/results'), { recursive: true });
    await writeFile(path.join(ROOT, 'bench/results/jobs.json'), `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await platform.close();
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
