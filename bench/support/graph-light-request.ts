/**
 * A light request while graph extraction runs, on the platform as `npm start` runs it (one process, PGlite on
 * disk, heavy work in worker threads): p99 of GET /api/auth/me (autocannon in a child process) while a large
 * prose document ingests with the offline graph step, next to the same request on the idle platform and while
 * the same document ingests into a knowledge base with `settings.graphExtraction: false` (what the graph adds).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { ScryptPasswordHasher } from '../../adapters/crypto/scrypt.password-hasher';
import { startPlatform } from '../../app/platform';
import { autocannon, type Run } from './autocannon';
import { benchConfig } from './bench-config';

export async function lightRequestDuringGraphExtraction(text: string, seconds: number) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ap-bench-graph-'));
  const config = benchConfig(dataDir, {});
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
    const kbOf = async (settings: Record<string, unknown>) =>
      (await json('POST', '/api/knowledge/kb', { name: `Graph bench ${randomUUID().slice(0, 6)}`, settings })).knowledgeBase.id as string;
    const kb = await kbOf({});
    const plainKb = await kbOf({ graphExtraction: false });
    const upload = async (name: string, content: string, into = kb) => {
      const form = new FormData();
      form.append('file', new Blob([content], { type: 'text/plain' }), name);
      const r = await fetch(`${gateway}/api/knowledge/kb/${into}/documents`, { method: 'POST', headers: owner, body: form });
      return ((await r.json()) as { document: { id: string } }).document.id;
    };
    type Doc = { processingStatus: string; chunkCount: number; graphStatus: string | null };
    const settle = async (id: string, into = kb): Promise<Doc> => {
      for (;;) {
        const doc = (await json('GET', `/api/knowledge/kb/${into}/documents/${id}`))?.document;
        if (doc && (doc.processingStatus === 'completed' || doc.processingStatus === 'failed')) return doc;
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const me = `${gateway}/api/auth/me`;

    // warm-up: worker threads boot on their first task, routes compile
    await settle(await upload('warm.txt', text.slice(0, 20_000)));
    await autocannon(me, bystander, 1);

    /** autocannon windows back to back until the document is ingested */
    const during = async (into: string) => {
      const started = performance.now();
      const id = await upload('large.txt', text, into);
      let done: Doc | null = null;
      const finished = settle(id, into).then((d) => {
        done = d;
        return performance.now();
      });
      const windows: Run[] = [];
      while (!done) windows.push(await autocannon(me, bystander, seconds));
      const ingestMs = Math.round((await finished) - started);
      const doc = done as unknown as Doc;
      const worst = windows.reduce((a, b) => (b.p99Ms > a.p99Ms ? b : a));
      return {
        document: { status: doc.processingStatus, graphStatus: doc.graphStatus, chunks: doc.chunkCount, ingestMs },
        windows: windows.length,
        worstP99Ms: worst.p99Ms,
        worstWindow: worst,
        all: windows,
      };
    };
    const idle = await autocannon(me, bystander, seconds);
    const withoutGraph = await during(plainKb);
    const withGraph = await during(kb);
    const stats = await json('GET', `/api/knowledge/kb/${kb}/graph/stats`);
    return {
      endpoint: 'GET /api/auth/me through the gateway, autocannon 4 connections',
      document: { kilobytes: Math.round(Buffer.byteLength(text) / 1024), graph: stats?.stats ?? null },
      figure: { what: 'while the document ingests with the graph step', ...withGraph },
      baseline: { what: 'same request, platform idle, same run', ...idle },
      withoutGraph: { what: 'while the same document ingests into a knowledge base with graphExtraction: false', ...withoutGraph },
      heavyWork: platform.infrastructure.knowledge.heavyWork.id,
    };
  } finally {
    await platform.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
