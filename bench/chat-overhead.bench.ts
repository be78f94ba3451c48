/**
 * Chat overhead: the platform in-process on PGlite with a knowledge base of 10,000 chunks (local embedder,
 * written straight through the vector index), an agent on `bench/instant` (a ChatModel that answers at once),
 * and, in the same run and on the same knowledge base and queries:
 *   - search only: `POST /api/knowledge/search` through the gateway;
 *   - chat: `POST /api/bots/:id/chat` with stream true through the gateway: time to the first streamed byte
 *     and total time.
 * Platform overhead at p50 = chat total - search - model time (the instant model's own time). Also reported:
 * the retrieval time measured inside chat, and chat total minus that.
 *
 *   npx tsx bench/chat-overhead.bench.ts [iterations]      writes bench/results/chat-overhead.json
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';

import { SERVICES } from '../app/container';
import { startPlatform } from '../app/platform';
import type { Services } from '../app/services';
import type { ChatCompletion, ChatModel, ChatRequest, ChatStreamPart } from '../core/ports/chat-model';
import { writeChunks } from '../test/chat/seed-knowledge';
import { benchConfig } from './support/bench-config';

const CHUNKS = 10_000;
const CHUNKS_PER_DOC = 100;
const ITERATIONS = Number(process.argv[2] ?? 200);
const WARMUP = 20;
const TARGET_OVERHEAD_MS = 15;

/** Answers instantly; records the time spent inside each call. */
class InstantModel implements ChatModel {
  readonly id = 'bench-instant';
  times: number[] = [];
  supports(model: string) {
    return model === 'bench/instant';
  }
  async complete(request: ChatRequest): Promise<ChatCompletion> {
    const t0 = performance.now();
    const r = { text: 'Instant answer.', usage: { promptTokens: 10, completionTokens: 2, totalTokens: 12 }, finishReason: 'stop' as const };
    this.times.push(performance.now() - t0);
    void request;
    return r;
  }
  async *stream(): AsyncIterable<ChatStreamPart> {
    let t0 = performance.now();
    let spent = 0;
    for (const token of ['Instant ', 'answer.']) {
      spent += performance.now() - t0;
      yield { type: 'token', token };
      t0 = performance.now();
    }
    spent += performance.now() - t0;
    this.times.push(spent);
    yield {
      type: 'done',
      completion: { text: 'Instant answer.', usage: { promptTokens: 10, completionTokens: 2, totalTokens: 12 }, finishReason: 'stop' },
    };
  }
}

const TOPICS = [
  'refund',
  'shipping',
  'warranty',
  'invoice',
  'account',
  'password',
  'delivery',
  'return',
  'payment',
  'subscription',
  'discount',
  'support',
  'privacy',
  'order',
  'exchange',
];
const VERBS = ['explains', 'describes', 'covers', 'lists', 'clarifies'];
function chunkText(i: number): string {
  const a = TOPICS[i % TOPICS.length];
  const b = TOPICS[(i * 7 + 3) % TOPICS.length];
  return `Section ${i} ${VERBS[i % VERBS.length]} the ${a} policy and how it relates to ${b}. Customers asking about ${a} should read paragraph ${i % 97} where the ${a} rules, deadlines and exceptions for ${b} are detailed. Reference code ${a.slice(0, 3).toUpperCase()}-${i}.`;
}
const QUERIES = TOPICS.flatMap((a, i) => [
  `How does the ${a} policy work?`,
  `What are the ${a} deadlines for ${TOPICS[(i + 4) % TOPICS.length]}?`,
]);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const round = (x: number) => Math.round(x * 100) / 100;
const stats = (xs: number[]) => ({
  p50Ms: round(pct(xs, 50)),
  p95Ms: round(pct(xs, 95)),
  meanMs: round(xs.reduce((a, b) => a + b, 0) / xs.length),
});

function post(
  url: URL,
  path: string,
  token: string,
  body: unknown,
): Promise<{ status: number; firstByteMs: number; totalMs: number; text: string }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let first = -1;
    const req = http.request(
      {
        host: url.hostname,
        port: Number(url.port),
        method: 'POST',
        path,
        agent,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          if (first < 0) first = performance.now() - t0;
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, firstByteMs: first, totalMs: performance.now() - t0, text }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

async function json(url: URL, method: string, path: string, token: string | null, body?: unknown) {
  const res = await fetch(new URL(path, url), {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = (await res.json()) as any;
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(data)}`);
  return data;
}

async function main() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ap-bench-chat-'));
  const config = benchConfig(dataDir, { LOG_LEVEL: 'silent' });
  const instant = new InstantModel();
  const platform = await startPlatform(config, { memoryDatabase: true, chat: { chatModels: [instant] } });
  try {
    const infra = platform.infrastructure;
    const services = platform.container.get<Services>(SERVICES);
    const base = new URL(platform.gatewayUrl);
    const free = (await infra.store.repos.models.findById('local/extractive'))!;
    await infra.store.repos.models.upsert([{ ...free, id: 'bench/instant', name: 'Instant bench model', provider: 'bench' }]);

    const reg = await json(base, 'POST', '/api/auth/register', null, {
      email: `bench-${randomUUID().slice(0, 8)}@example.com`,
      password: `pw-${randomUUID()}`,
      displayName: 'Bench',
    });
    const token = reg.data.accessToken as string;
    const orgId = reg.data.user.organizations[0].id as string;
    const kb = (await json(base, 'POST', '/api/knowledge/kb', token, { name: 'Bench KB' })).knowledgeBase;

    const tSeed = performance.now();
    const now = new Date().toISOString();
    for (let d = 0; d < CHUNKS / CHUNKS_PER_DOC; d++) {
      const documentId = randomUUID();
      const title = `policy-${d}.txt`;
      await infra.db.knex('knowledge_documents').insert({
        id: documentId,
        organization_id: orgId,
        knowledge_base_id: kb.id,
        title,
        mime_type: 'text/plain',
        processing_status: 'completed',
        chunk_count: CHUNKS_PER_DOC,
        summary: `Policy document ${d}`,
        created_at: now,
        updated_at: now,
        processed_at: now,
      });
      const texts = Array.from({ length: CHUNKS_PER_DOC }, (_, i) => chunkText(d * CHUNKS_PER_DOC + i));
      await writeChunks({ infra, store: infra.store }, orgId, kb.id, documentId, title, texts, 500);
    }
    const seedSeconds = (performance.now() - tSeed) / 1000;
    process.stdout.write(`seeded ${CHUNKS} chunks in ${seedSeconds.toFixed(1)} s\n`);

    const bot = (
      await json(base, 'POST', '/api/bots', token, {
        name: 'Bench agent',
        model: 'bench/instant',
        knowledgeBaseIds: [kb.id],
        isDraft: false,
      })
    ).bot;

    // Retrieval time as chat sees it (the same retrieve call, timed inside the chat dependencies).
    const chatRetrievalTimes: number[] = [];
    const retrieval = services.chat.retrieval!;
    services.chat.retrieval = async (input) => {
      const t0 = performance.now();
      try {
        return await retrieval(input);
      } finally {
        chatRetrievalTimes.push(performance.now() - t0);
      }
    };

    const search: number[] = [];
    const ttfb: number[] = [];
    const total: number[] = [];
    let sources = 0;
    let results = 0;
    for (let i = 0; i < WARMUP + ITERATIONS; i++) {
      const query = QUERIES[i % QUERIES.length];
      const s = await post(base, '/api/knowledge/search', token, { knowledgeBaseIds: [kb.id], query });
      const c = await post(base, `/api/bots/${bot.id}/chat`, token, { message: query, stream: true });
      if (s.status !== 200 || c.status !== 200)
        throw new Error(`search ${s.status} ${s.text.slice(0, 200)} / chat ${c.status} ${c.text.slice(0, 200)}`);
      if (i < WARMUP) continue;
      search.push(s.totalMs);
      ttfb.push(c.firstByteMs);
      total.push(c.totalMs);
      results += (JSON.parse(s.text).results ?? []).length;
      const done = c.text.split('\n\n').filter((f) => f.includes('"done":true'))[0];
      sources += done ? JSON.parse(done.slice(6)).sources.length : 0;
    }
    const model = instant.times.slice(-ITERATIONS);
    const retrievalInChat = chatRetrievalTimes.slice(-ITERATIONS);
    const overheadP50 = pct(total, 50) - pct(search, 50) - pct(model, 50);
    const result = {
      date: new Date().toISOString(),
      node: process.version,
      cpus: os.cpus().length,
      setup: {
        store: 'PGlite (in-memory, over its local socket)',
        vectorIndex: infra.knowledge.vectorIndex.id,
        embedder: infra.knowledge.embedder.model,
        chunks: CHUNKS,
        documents: CHUNKS / CHUNKS_PER_DOC,
        iterations: ITERATIONS,
        warmup: WARMUP,
        seedSeconds: round(seedSeconds),
      },
      searchOnly: stats(search),
      chat: { timeToFirstByte: stats(ttfb), total: stats(total) },
      model: stats(model),
      retrievalInsideChat: stats(retrievalInChat),
      averageResults: { search: round(results / ITERATIONS), chatSources: round(sources / ITERATIONS) },
      overhead: {
        p50Ms: round(overheadP50),
        definition: 'chat total p50 - search-only p50 - model p50 (both requests through the gateway, same knowledge base and queries)',
        p50VersusRetrievalInsideChatMs: round(pct(total, 50) - pct(retrievalInChat, 50) - pct(model, 50)),
        // Each chat runs right after a search on the same query: the median of the per-pair differences is
        // less sensitive to load drifting during the run than the difference of the medians.
        pairedP50Ms: round(
          pct(
            total.map((t, i) => t - search[i] - (model[i] ?? 0)),
            50,
          ),
        ),
      },
      target: { maxOverheadP50Ms: TARGET_OVERHEAD_MS, met: overheadP50 < TARGET_OVERHEAD_MS },
    };
    const out = path.join(__dirname, 'results', 'chat-overhead.json');
    await mkdir(path.dirname(out), { recursive: true });
    await writeFile(out, `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    agent.destroy();
    await platform.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
