import { openApiDocument } from '../../app/http-routes';
import { isOpenAiCompatiblePath } from '../../core/shared/openai-error';
import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { LITERALS, resourceOf } from './bola-params';
import { type FuzzRequest, fuzzRequestsFor, randomMutations } from './fuzz-requests';
import { operationsOf } from './schema-samples';
import { buildTenantWorld, type TenantWorld } from './tenant-world';

/**
 * Contract fuzzing (issue 8): requests generated from every operation's schemas go through the gateway with
 * valid credentials and real resource ids, so they reach validation and the handlers. No answer may be a 500,
 * and every 4xx must carry the error body of docs/contracts.md ({error, message, code?, details?}, JSON), or OpenAI's
 * error object on the OpenAI-compatible paths.
 */
const TARGET = 10_000;
let p: TestPlatform;
let world: TenantWorld;
let ops: ReturnType<typeof operationsOf> = [];

beforeAll(async () => {
  p = await startTestPlatform({
    RATE_LIMIT_PER_IP: '10000000',
    RATE_LIMIT_PER_PRINCIPAL: '10000000',
    PUBLIC_CHAT_PER_MINUTE: '1000000',
    PUBLIC_CHAT_PER_IP_PER_MINUTE: '1000000',
    PUBLIC_UPLOADS_PER_MINUTE: '1000000',
    PUBLIC_UPLOADS_PER_IP_PER_MINUTE: '1000000',
    REGISTRATIONS_PER_IP: '1000000',
    LOGIN_FAILURES_PER_ACCOUNT: '1000000',
    LOGIN_FAILURES_PER_IP: '1000000',
  });
  ops = operationsOf(openApiDocument(p.infra));
  world = await buildTenantWorld(p);
}, BOOT_TIMEOUT_MS);
afterAll(() => p?.close(), BOOT_TIMEOUT_MS);

function requests(): FuzzRequest[] {
  const all: FuzzRequest[] = [];
  const later: FuzzRequest[] = [];
  for (const op of ops) {
    const fill = (name: string) => {
      const resource = resourceOf(op.path, name) ?? 'literal:1';
      if (resource === 'attacker:visitor') return world.visitor;
      return LITERALS[resource] ?? world.ids[resource]?.[0] ?? 'missing';
    };
    const auth: Record<string, string> =
      op.lane === 'user'
        ? { authorization: `Bearer ${world.a.owner.accessToken}` }
        : op.lane === 'apiKey'
          ? { authorization: `Bearer ${world.b.apiKey}` }
          : {};
    const generated = fuzzRequestsFor(op, fill, auth);
    // Deletions run last, so the other requests still find the resources.
    (op.method === 'DELETE' ? later : all).push(...generated);
  }
  // Random mutations go to operations that answer quickly; the model-calling and fetching ones get the
  // deterministic set only, which keeps the suite within its CI budget on two cores.
  const EXPENSIVE = new Set([
    'chatWithAgent',
    'previewChat',
    'publicChat',
    'openAiChatCompletions',
    'setupAgent',
    'searchKnowledge',
    'createConversation',
    'createPublicConversation',
    'lightScrape',
    'addKnowledgeSource',
    'register',
    'login',
    'changePassword',
  ]);
  const bodyOps = ops.filter((op) => op.body && op.body !== 'multipart' && op.method !== 'DELETE' && !EXPENSIVE.has(op.operationId));
  const missing = TARGET + 200 - all.length - later.length;
  bodyOps.forEach((op, i) => {
    const count = Math.ceil(Math.max(0, missing) / bodyOps.length);
    const fill = (name: string) =>
      LITERALS[resourceOf(op.path, name) ?? ''] ?? world.ids[resourceOf(op.path, name) ?? '']?.[0] ?? world.visitor;
    const auth: Record<string, string> = op.lane === 'user' ? { authorization: `Bearer ${world.a.owner.accessToken}` } : {};
    all.push(...randomMutations(op, fill, auth, count, 1000 + i));
  });
  return [...all, ...later];
}

interface Outcome {
  request: FuzzRequest;
  status: number;
  problem: string | null;
  ms?: number;
}

const ALLOWED_KEYS = new Set(['error', 'message', 'code', 'details']);

async function send(r: FuzzRequest): Promise<Outcome> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 15_000);
  try {
    const res = await fetch(`${p.gatewayUrl}${r.path}`, {
      method: r.method,
      headers: r.headers,
      body: r.body,
      redirect: 'manual',
      signal: controller.signal,
    });
    const type = res.headers.get('content-type') ?? '';
    if (type.startsWith('text/event-stream')) {
      await res.body?.cancel();
      return { request: r, status: res.status, problem: null };
    }
    const text = await res.text();
    if (res.status === 500) return { request: r, status: 500, problem: `500: ${text.slice(0, 200)}` };
    if (res.status >= 400 && res.status < 500) {
      if (!type.startsWith('application/json')) return { request: r, status: res.status, problem: `4xx with content-type ${type}` };
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return { request: r, status: res.status, problem: '4xx body is not JSON' };
      }
      const b = body as Record<string, unknown>;
      if (isOpenAiCompatiblePath(new URL(r.path, 'http://x').pathname)) {
        const e = b?.error as Record<string, unknown> | undefined;
        const shaped = Object.keys(b ?? {}).join() === 'error' && typeof e?.message === 'string' && typeof e?.type === 'string';
        return { request: r, status: res.status, problem: shaped ? null : `4xx body is not OpenAI's error object: ${text.slice(0, 200)}` };
      }
      const keysOk = b && typeof b === 'object' && Object.keys(b).every((k) => ALLOWED_KEYS.has(k));
      if (!keysOk || typeof b.error !== 'string' || typeof b.message !== 'string') {
        return { request: r, status: res.status, problem: `4xx body is not the error body: ${text.slice(0, 200)}` };
      }
    }
    return { request: r, status: res.status, problem: null };
  } catch (e) {
    return { request: r, status: 0, problem: `no answer: ${(e as Error).message}` };
  } finally {
    clearTimeout(timer);
  }
}

describe('contract fuzzing through the gateway', () => {
  it(`answers ${TARGET}+ generated requests with no 500 and the docs/contracts.md error body on every 4xx`, async () => {
    const all = requests();
    const outcomes: Outcome[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 12 }, async () => {
        while (next < all.length) {
          const started = performance.now();
          const o = await send(all[next++]!);
          o.ms = performance.now() - started;
          outcomes.push(o);
        }
      }),
    );
    const problems = outcomes.filter((o) => o.problem);
    if (process.env.FUZZ_PROFILE) {
      const byKind: Record<string, number> = {};
      for (const o of outcomes) {
        const k = `${o.request.kind.replace(/ #.*|=.*| [^ ]*$/, '')}`;
        byKind[k] = (byKind[k] ?? 0) + (o.ms ?? 0);
      }
      console.log(
        Object.entries(byKind)
          .sort((a, b) => b[1] - a[1])
          .slice(0, 15),
      );
      const slowOps: Record<string, number> = {};
      for (const o of outcomes) slowOps[o.request.operationId] = (slowOps[o.request.operationId] ?? 0) + (o.ms ?? 0);
      console.log(
        Object.entries(slowOps)
          .sort((a, b) => b[1] - a[1])
          .slice(0, 15),
      );
      console.log(
        outcomes
          .filter((o) => o.status === 502)
          .slice(0, 5)
          .map((o) => `${o.request.operationId} ${o.request.kind}`),
      );
    }
    const byStatus: Record<string, number> = {};
    for (const o of outcomes) byStatus[o.status] = (byStatus[o.status] ?? 0) + 1;
    console.log(
      `Contract fuzzing: ${outcomes.length} requests over ${ops.length} operations; statuses ${JSON.stringify(byStatus)}; ${problems.length} problems`,
    );
    expect(
      problems
        .slice(0, 30)
        .map((o) => `${o.request.operationId} [${o.request.kind}] ${o.request.method} ${o.request.path.slice(0, 120)} -> ${o.problem}`),
    ).toEqual([]);
    expect(outcomes.length).toBeGreaterThanOrEqual(TARGET);
  }, 900_000);
});
