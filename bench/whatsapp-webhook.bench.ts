/**
 * Inbound WhatsApp webhook under a steady 200 requests/s (issue 11: "Inbound work is queued: the webhook
 * answers 200 fast"; target p99 under 20 ms). The platform runs as in `npm start` (one process, PGlite, the
 * in-process queue and the offline model), a local fake stands in for the Graph API, and an open-loop
 * generator in a child process sends at a fixed rate through the gateway (bench/support/fixed-rate.ts).
 *
 *   npx tsx bench/whatsapp-webhook.bench.ts    writes bench/results/whatsapp-webhook.json
 *   WEBHOOK_RATE=200 WEBHOOK_SECONDS=10        the rate and the length of each run
 *   WEBHOOK_STACK=split                        the production shape instead: gateway, api and worker processes on
 *                                              Postgres (pgvector), RabbitMQ and Redis; writes whatsapp-webhook-split.json
 *   WEBHOOK_WORKER_NICE=10                     with split: the worker process niced (whatsapp-webhook-split-nice10.json)
 *
 * Same-run baseline: the same bodies unsigned at the same rate (401 after the channel lookup, nothing queued),
 * after a warm-up of both paths.
 * Then the signed run: every POST is a new message id from one of 50 senders, so the worker answers each one
 * (contact, conversation, chat turn, reply through the fake Graph API) while the webhook keeps answering.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';

import { ScryptPasswordHasher } from '../adapters/crypto/scrypt.password-hasher';
import { startPlatform } from '../app/platform';
import { whatsappNotification, whatsappSignature, whatsappText } from '../test/fakes/whatsapp-notification';
import { serverHasPgvector } from '../test/support/scratch-database';
import { type SplitStack, startSplitStack } from '../test/support/split-stack';
import { benchConfig } from './support/bench-config';
import { fixedRate, type FixedRateRequest } from './support/fixed-rate';

const RATE = Number(process.env.WEBHOOK_RATE ?? 200);
/** `split`: gateway, api and worker as three processes on Postgres, RabbitMQ and Redis (bench/support/split-stack.ts). */
const STACK = process.env.WEBHOOK_STACK === 'split' ? 'split' : 'start';
/** With `split`: the worker process's niceness (e.g. 10), so the api gets the CPU first. */
const WORKER_NICE = Number(process.env.WEBHOOK_WORKER_NICE ?? 0);
const SECONDS = Number(process.env.WEBHOOK_SECONDS ?? 10);
const APP_SECRET = 'bench-app-secret-0123456789';
const REFUNDS =
  'Refunds are paid within five business days of the return reaching our warehouse. ' +
  'Exchanges are free within thirty days. Shipping costs are refunded only for faulty goods.';

const notification = (id: string, from: string, body: string) =>
  whatsappNotification({ sender: { waId: from, name: `Sender ${from.slice(-2)}` }, messages: [whatsappText(from, id, body)] });

/** The Graph API's messages endpoint: counts the replies. */
async function fakeGraph() {
  let replies = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.method === 'POST' && /\/\d+\/messages$/.test(req.url ?? '')) replies++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ messages: [{ id: `wamid.${randomUUID()}` }] }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/v20.0`, replies: () => replies, close: () => new Promise((r) => server.close(r)) };
}

async function json(url: string, method: string, body: unknown, token?: string) {
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, any>;
}

async function main() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ap-bench-wa-'));
  const graph = await fakeGraph();
  let split: SplitStack | undefined;
  let platform: { gatewayUrl: string; close(): Promise<void> };
  if (STACK === 'split') {
    if (!serverHasPgvector())
      throw new Error('WEBHOOK_STACK=split: the local Postgres server has no pgvector (run bin/install-pgvector.sh)');
    split = await startSplitStack({ WHATSAPP_GRAPH_API_URL: graph.url }, WORKER_NICE);
    platform = split;
  } else {
    const config = benchConfig(dataDir, { WHATSAPP_GRAPH_API_URL: graph.url });
    platform = await startPlatform(config, { passwords: new ScryptPasswordHasher({ N: 1024, r: 8, p: 1 }) });
  }
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'ap-bench-wa-load-'));
  try {
    const gw = platform.gatewayUrl;
    const token = (await json(`${gw}/api/auth/register`, 'POST', { email: 'wa-bench@example.com', password: 'bench-password-1' })).data
      .accessToken as string;
    // A live agent answers from an indexed document (the offline model), as a real channel's agent would.
    const kbId = (await json(`${gw}/api/knowledge/kb`, 'POST', { name: 'Bench KB' }, token)).knowledgeBase.id as string;
    const form = new FormData();
    form.append('file', new Blob([REFUNDS], { type: 'text/plain' }), 'refunds.txt');
    const upload = await fetch(`${gw}/api/knowledge/kb/${kbId}/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    const documentId = ((await upload.json()) as { document: { id: string } }).document.id;
    for (let status = ''; status !== 'completed'; await new Promise((r) => setTimeout(r, 100))) {
      const doc = await fetch(`${gw}/api/knowledge/kb/${kbId}/documents/${documentId}`, { headers: { authorization: `Bearer ${token}` } });
      status = ((await doc.json()) as { document: { processingStatus: string } }).document.processingStatus;
      if (status === 'failed') throw new Error('the bench document failed to index');
    }
    const agentId = (await json(`${gw}/api/bots`, 'POST', { name: 'WhatsApp bench agent', knowledgeBaseIds: [kbId] }, token)).bot
      .id as string;
    const channel = (
      await json(
        `${gw}/api/bots/${agentId}/channels`,
        'POST',
        {
          type: 'whatsapp_business',
          label: 'Bench line',
          config: { phoneNumberId: '1234567890' },
          secrets: { appSecret: APP_SECRET, accessToken: 'bench-access-token', verifyToken: 'bench-verify-token' },
        },
        token,
      )
    ).channel as { id: string };
    const inboundPath = `/api/public/channels/${channel.id}/inbound`;
    const n = RATE * SECONDS;
    const requests = (run: string, signed: boolean): FixedRateRequest[] =>
      Array.from({ length: n }, (_, i) => {
        const body = notification(
          `wamid.${run}.${i}`,
          `49151000000${String(i % 50).padStart(2, '0')}`,
          `Question ${i}: how fast are refunds paid?`,
        );
        const headers: Record<string, string> = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) };
        if (signed) headers['x-hub-signature-256'] = whatsappSignature(body, APP_SECRET);
        return { method: 'POST', path: inboundPath, headers, body };
      });
    const loopDelays: Record<string, { p99Ms: number; maxMs: number }> = {};
    const load = async (name: string, list: FixedRateRequest[]) => {
      const file = path.join(tmp, `${name}.json`);
      writeFileSync(file, JSON.stringify({ baseUrl: gw, rate: RATE, requests: list }));
      // How long this process's event loop was blocked during the run: separates our own stalls from the machine's.
      const delay = monitorEventLoopDelay({ resolution: 1 });
      delay.enable();
      const figures = await fixedRate(file);
      delay.disable();
      loopDelays[name] = { p99Ms: delay.percentile(99) / 1e6, maxMs: delay.max / 1e6 };
      return figures;
    };
    // Warm-up of both paths (JIT, connections: the first seconds of a fresh process are several times slower),
    // 2 s each; the signed one with status notifications only, so the worker gets nothing to answer.
    const statusOnly = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [{ id: 'WABA', changes: [{ field: 'messages', value: { statuses: [{ id: 'wamid.x', status: 'read' }] } }] }],
    });
    const statusHeaders = {
      'content-type': 'application/json',
      'x-hub-signature-256': whatsappSignature(statusOnly, APP_SECRET),
    };
    await load('warmup-unsigned', requests('warmup', false).slice(0, 2 * RATE));
    await load(
      'warmup-signed',
      Array.from({ length: 2 * RATE }, () => ({ method: 'POST' as const, path: inboundPath, headers: statusHeaders, body: statusOnly })),
    );
    const baseline = await load('unsigned', requests('unsigned', false));
    const started = Date.now();
    const signed = await load('signed', requests('signed', true));
    const repliesAtEnd = graph.replies();
    const result = {
      date: new Date().toISOString(),
      node: process.version,
      cpus: os.cpus().length,
      loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
      store:
        STACK === 'split'
          ? 'split roles: gateway, api and worker processes; Postgres server + pgvector, RabbitMQ, Redis; offline model'
          : 'embedded (PGlite), in-process queue, offline model',
      ...(split ? { rssMb: split.rssMb(), workerNice: WORKER_NICE } : {}),
      rate: RATE,
      secondsPerRun: SECONDS,
      baselineUnsigned401: baseline,
      signed,
      ratios: { p50: signed.latency.p50Ms / baseline.latency.p50Ms, p99: signed.latency.p99Ms / baseline.latency.p99Ms },
      worker: {
        repliesSentDuringRun: repliesAtEnd,
        runMs: Date.now() - started,
        repliesPerSecond: repliesAtEnd / ((Date.now() - started) / 1000),
      },
      // the platform's event loop only when it runs in this process
      ...(STACK === 'start' ? { eventLoopDelay: loopDelays } : {}),
      target: { p99Ms: 20 },
      note:
        STACK === 'split'
          ? 'latency from the scheduled send time (open loop); gateway, api and worker are separate processes sharing two cores with Postgres, RabbitMQ, Redis, the generator and the fake Graph API.'
          : 'latency from the scheduled send time (open loop); the platform, its worker and the fake Graph API share this process and two cores with other work on the machine.',
    };
    await mkdir(path.join(__dirname, 'results'), { recursive: true });
    const file = STACK === 'split' ? `whatsapp-webhook-split${WORKER_NICE ? `-nice${WORKER_NICE}` : ''}.json` : 'whatsapp-webhook.json';
    await writeFile(path.join(__dirname, 'results', file), JSON.stringify(result, null, 2));
    console.log(JSON.stringify(result, null, 2));
  } finally {
    await platform.close();
    await graph.close();
    rmSync(tmp, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
