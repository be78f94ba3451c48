/**
 * Fair heavy work (security finding: an anonymous visitor starved other tenants' ingestion). On the platform as
 * `npm start` runs it, with 2 worker threads: another organization's small .txt document, upload until completed,
 * while anonymous visitors flood a public agent with 40 attachments of a 0.5 MB PDF whose content stream is
 * `/Filter [/ASCIIHexDecode /FlateDecode]` over 250 MB of spaces, against the same ingestion on the idle platform,
 * in the same run. Reports the ratio, what each attachment ended as, and the pool's work accounting per tenant.
 *
 *   npx tsx bench/heavy-work-fairness.bench.ts     writes bench/results/heavy-work-fairness.json
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { ScryptPasswordHasher } from '../adapters/crypto/scrypt.password-hasher';
import { startPlatform } from '../app/platform';
import { pdfBomb } from '../test/support/bombs';
import { benchConfig } from './support/bench-config';

const ROOT = path.resolve(__dirname, '..');
const ATTACHMENTS = Number(process.env.BENCH_ATTACHMENTS ?? 40);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 5);
const now = () => performance.now();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

async function main() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ap-bench-fair-'));
  const platform = await startPlatform(
    benchConfig(dataDir, {
      HEAVY_WORK_THREADS: '2',
      // the finding's flood: one address, visitors within the per-visitor upload limit
      PUBLIC_UPLOADS_PER_IP_PER_MINUTE: '60',
    }),
    { passwords: new ScryptPasswordHasher({ N: 1024, r: 8, p: 1 }) },
  );
  const gateway = platform.gatewayUrl;
  const work = platform.infrastructure.knowledge.heavyWork;
  try {
    const session = async (label: string) => {
      const r = await fetch(`${gateway}/api/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: `bench-${label}-${randomUUID().slice(0, 8)}@example.com`, password: `pw-${randomUUID()}` }),
      });
      const body = (await r.json()) as { data: { accessToken: string } };
      return { authorization: `Bearer ${body.data.accessToken}` };
    };
    const call = async (method: string, url: string, auth: Record<string, string>, body?: unknown) => {
      const init: RequestInit = { method, headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) } };
      if (body !== undefined) init.body = JSON.stringify(body);
      const r = await fetch(`${gateway}${url}`, init);
      return { status: r.status, body: (await r.json().catch(() => undefined)) as any };
    };
    const send = async (url: string, auth: Record<string, string>, name: string, type: string, bytes: Buffer) => {
      const form = new FormData();
      form.append('file', new Blob([bytes], { type }), name);
      const r = await fetch(`${gateway}${url}`, { method: 'POST', headers: auth, body: form });
      return { status: r.status, body: (await r.json().catch(() => undefined)) as any };
    };

    // the victim: another organization's small text document
    const victim = await session('victim');
    const kb = (await call('POST', '/api/knowledge/kb', victim, { name: 'Victim' })).body.knowledgeBase.id as string;
    const ingestTxt = async () => {
      const t = now();
      const r = await send(
        `/api/knowledge/kb/${kb}/documents`,
        victim,
        `note-${randomUUID().slice(0, 6)}.txt`,
        'text/plain',
        Buffer.from('Refunds are paid within fourteen days. '.repeat(50)),
      );
      for (;;) {
        const d = (await call('GET', `/api/knowledge/kb/${kb}/documents/${r.body.document.id}`, victim)).body?.document;
        if (d && (d.processingStatus === 'completed' || d.processingStatus === 'failed')) {
          if (d.processingStatus !== 'completed') throw new Error(`victim document failed: ${d.error}`);
          return now() - t;
        }
        await new Promise((res) => setTimeout(res, 25));
      }
    };

    // the attacker's target: a public agent with uploads, of a third organization
    const owner = await session('owner');
    const okb = (await call('POST', '/api/knowledge/kb', owner, { name: 'Public' })).body.knowledgeBase.id as string;
    // an agent is published over a knowledge base with a document
    const policy = await send(
      `/api/knowledge/kb/${okb}/documents`,
      owner,
      'policy.txt',
      'text/plain',
      Buffer.from('Refunds within 14 days.'),
    );
    for (;;) {
      const d = (await call('GET', `/api/knowledge/kb/${okb}/documents/${policy.body.document.id}`, owner)).body?.document;
      if (d && (d.processingStatus === 'completed' || d.processingStatus === 'failed')) break;
      await new Promise((res) => setTimeout(res, 25));
    }
    const bot = (
      await call('POST', '/api/bots', owner, { name: 'Public', knowledgeBaseIds: [okb], isDraft: true, fileUploadsEnabled: true })
    ).body.bot.id as string;
    const published = await call('POST', `/api/bots/${bot}/publish`, owner);
    const distributed = await call('POST', `/api/bots/${bot}/distribution/publish`, owner, {});
    const slug = distributed.body?.slug as string;
    if (!slug)
      throw new Error(`the public agent is not distributed: ${published.status} ${distributed.status} ${JSON.stringify(distributed.body)}`);
    const pdf = pdfBomb(250, ['ASCIIHexDecode', 'FlateDecode']);

    // warm-up (threads boot, routes compile), then the idle baseline
    await ingestTxt();
    const idle: number[] = [];
    for (let i = 0; i < SAMPLES; i++) idle.push(await ingestTxt());

    // the flood: 40 attachments from one address, 10 per visitor (PUBLIC_UPLOADS_PER_MINUTE), all at once
    const before = new Map((work.usage?.() ?? []).map((u) => [u.tenant, u]));
    const floodStarted = now();
    const outcomes: Record<string, number> = {};
    const count = (k: string) => (outcomes[k] = (outcomes[k] ?? 0) + 1);
    const errors = new Map<string, number>();
    let floodDone = false;
    const flood = Promise.all(
      Array.from({ length: ATTACHMENTS }, async (_, i) => {
        const visitor = `00000000-0000-4000-8000-${String(Math.floor(i / 10)).padStart(12, '0')}`;
        const r = await send(`/api/public/agents/${slug}/attachments?anonymousId=${visitor}`, {}, 'big.pdf', 'application/pdf', pdf);
        if (r.status !== 200) return count(`upload ${r.status}`);
        const { id, accessToken } = r.body.attachment;
        for (;;) {
          const s = await call('GET', `/api/public/agents/${slug}/attachments/${id}?anonymousId=${visitor}`, {
            'x-attachment-token': accessToken,
          });
          const a = s.body?.attachment;
          if (a && a.processingStatus !== 'pending' && a.processingStatus !== 'processing') {
            count(a.processingStatus);
            const got = await platform.infrastructure.store.repos.attachments.findById(id);
            if (got?.error) errors.set(got.error.replace(/\d+/g, 'N'), (errors.get(got.error.replace(/\d+/g, 'N')) ?? 0) + 1);
            return;
          }
          await new Promise((res) => setTimeout(res, 50));
        }
      }),
    ).then(() => {
      floodDone = true;
      return now() - floodStarted;
    });
    const underFlood: number[] = [];
    // samples while the flood is in flight (at least one, even if the flood ends first)
    do underFlood.push(await ingestTxt());
    while (!floodDone && underFlood.length < SAMPLES);
    const floodMs = await flood;
    const usage = (work.usage?.() ?? []).map((u) => {
      const b = before.get(u.tenant);
      return { tenant: u.tenant, tasks: u.tasks - (b?.tasks ?? 0), threadMs: +(u.threadMs - (b?.threadMs ?? 0)).toFixed(0) };
    });

    const result = {
      date: new Date().toISOString(),
      node: process.version,
      cpus: os.cpus().length,
      loadAverageAtEnd: os.loadavg().map((l) => +l.toFixed(2)),
      heavyWork: { adapter: work.id, threads: work.stats().threads },
      attack: {
        attachments: ATTACHMENTS,
        pdfBytes: pdf.length,
        filter: '[/ASCIIHexDecode /FlateDecode]',
        unpackedMegabytes: 250,
        floodMs: +floodMs.toFixed(0),
        outcomes,
        errors: Object.fromEntries(errors),
      },
      victimTxtIngestion: {
        what: "another organization's small .txt, upload until completed (ms)",
        idleMs: idle.map((x) => +x.toFixed(0)),
        underFloodMs: underFlood.map((x) => +x.toFixed(0)),
        idleMedianMs: +median(idle).toFixed(0),
        underFloodMedianMs: +median(underFlood).toFixed(0),
        ratio: +(median(underFlood) / median(idle)).toFixed(2),
        worstUnderFloodMs: +Math.max(...underFlood).toFixed(0),
      },
      workAccounting: { what: 'pool-measured thread time per tenant during the flood and its samples', usage },
      publicWorkBudget: platform.infrastructure.config.publicChat.workBudget,
    };
    await mkdir(path.join(ROOT, 'bench/results'), { recursive: true });
    await writeFile(path.join(ROOT, 'bench/results/heavy-work-fairness.json'), `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await platform.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
