/**
 * A light request while graph extraction runs, on the platform as `npm start` runs it (one process, PGlite on
 * disk, heavy work in worker threads): p99 of GET /api/auth/me (autocannon in a child process) while a large
 * prose document ingests with the offline graph step, next to the same request on the idle platform.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { ScryptPasswordHasher } from '../../adapters/crypto/scrypt.password-hasher';
import { loadConfig } from '../../app/configuration';
import { startPlatform } from '../../app/platform';
import { autocannon, type Run } from './autocannon';

export async function lightRequestDuringGraphExtraction(text: string, seconds: number) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ap-bench-graph-'));
  const config = loadConfig('start', {
    DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_IP: '100000000',
    RATE_LIMIT_PER_PRINCIPAL: '100000000',
  });
  const platform = await startPlatform(config, { passwords: new ScryptPasswordHasher({ N: 1024, r: 8, p: 1 }) });
  const gateway = platform.gatewayUrl;
  try {
    const session = async (label: string) => {
      const r = await fetch(`${gateway}/api/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: `bench-${label}-${randomUUID().slice(0, 8)}@example.com`, password: `pw-${randomUUID()}` }),
      });
      return { authorization: `Bearer ${((await r.json()) as { data: { accessToken: string } }).data.accessToken}` };
    };
    const bystander = await session('bystander');
    const owner = await session('owner');
    const json = async (method: string, url: string, body?: unknown) => {
      const r = await fetch(`${gateway}${url}`, {
        method,
        headers: { ...owner, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return (await r.json().catch(() => undefined)) as any;
    };
    const kb = (await json('POST', '/api/knowledge/kb', { name: 'Graph bench' })).knowledgeBase.id as string;
    const upload = async (name: string, content: string) => {
      const form = new FormData();
      form.append('file', new Blob([content], { type: 'text/plain' }), name);
      const r = await fetch(`${gateway}/api/knowledge/kb/${kb}/documents`, { method: 'POST', headers: owner, body: form });
      return ((await r.json()) as { document: { id: string } }).document.id;
    };
    const settle = async (id: string) => {
      for (;;) {
        const doc = (await json('GET', `/api/knowledge/kb/${kb}/documents/${id}`))?.document;
        if (doc && (doc.processingStatus === 'completed' || doc.processingStatus === 'failed')) return doc;
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const me = `${gateway}/api/auth/me`;

    // warm-up: worker threads boot on their first task, routes compile
    await settle(await upload('warm.txt', text.slice(0, 20_000)));
    await autocannon(me, bystander, 1);

    const idle = await autocannon(me, bystander, seconds);
    const started = performance.now();
    const id = await upload('large.txt', text);
    let done: { processingStatus: string; chunkCount: number; metadata?: Record<string, unknown> } | null = null;
    const finished = settle(id).then((d) => {
      done = d;
      return performance.now();
    });
    const windows: Run[] = [];
    while (!done) windows.push(await autocannon(me, bystander, seconds));
    const ingestMs = (await finished) - started;
    const ingested = done as unknown as { processingStatus: string; chunkCount: number; metadata?: Record<string, unknown> };
    const stats = await json('GET', `/api/knowledge/kb/${kb}/graph/stats`);
    const worst = windows.reduce((a, b) => (b.p99Ms > a.p99Ms ? b : a));
    return {
      endpoint: 'GET /api/auth/me through the gateway, autocannon 4 connections',
      document: {
        kilobytes: Math.round(Buffer.byteLength(text) / 1024),
        status: ingested.processingStatus,
        graphStatus: ingested.metadata?.graphStatus ?? null,
        chunks: ingested.chunkCount,
        ingestMs: Math.round(ingestMs),
        graph: stats ?? null,
      },
      figure: { windows: windows.length, worstP99Ms: worst.p99Ms, worstWindow: worst, all: windows },
      baseline: { what: 'same request, platform idle, same run', ...idle },
      heavyWork: platform.infrastructure.knowledge.heavyWork.id,
    };
  } finally {
    await platform.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
