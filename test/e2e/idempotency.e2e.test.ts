/**
 * `Idempotency-Key` on the POSTs of /api and /v1 (docs/contracts.md "Delivery guarantees"), end to end through the
 * gateway of a started platform: a retried create, chat turn, stream or upload runs once and the retry gets
 * the first answer replayed with `Idempotent-Replayed: true`; another body under the key is 409
 * idempotency_key_reused; keys are per organization and per anonymousId on the public lane.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';

import { ScriptedModel } from '../chat/fakes';
import { seedDocument, sseData } from '../chat/seed-knowledge';
import { createKb } from '../knowledge/knowledge-support';
import { base, distributedAgent, waitFor } from '../public-chat/public-support';
import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { registerUser, type TestUser } from '../support/users';

const REFUND_TEXT = ['Refunds are paid within fourteen days of the request.', 'Shipping is free for orders above fifty euros.'];
const slow = new ScriptedModel(Array.from({ length: 30 }, (_, i) => `word${i}`).join(' '), { prefix: 'test/slow', delayMs: 25 });
const flaky = new ScriptedModel('A steady answer.', { prefix: 'test/flaky' });

let p: TestPlatform;
beforeAll(async () => {
  p = await startTestPlatform(
    { EMBEDDINGS_PROVIDER: 'local', VISION_PROVIDER: 'none', TRANSCRIPTION_PROVIDER: 'none' },
    { chat: { chatModels: [slow, flaky] } },
  );
  const template = (await p.store.repos.models.findById('openai/gpt-4o-mini'))!;
  await p.store.repos.models.upsert([
    { ...template, id: 'test/slow', name: 'Slow test model', provider: 'test' },
    { ...template, id: 'test/flaky', name: 'Flaky test model', provider: 'test' },
  ]);
}, BOOT_TIMEOUT_MS);
afterAll(() => p?.close(), BOOT_TIMEOUT_MS);

const keyed = (key: string, token?: string) => ({ ...(token ? { token } : {}), headers: { 'idempotency-key': key } });

/** A knowledge base with an indexed document and an agent on it (a fresh organization per test keeps counts exact). */
async function chatAgent(owner: TestUser, settings: Record<string, unknown> = {}) {
  const kb = await createKb(p, owner.accessToken, { name: `Policies ${randomUUID().slice(0, 6)}` });
  await seedDocument(p, owner.orgId, kb.id, 'refund-policy.txt', REFUND_TEXT);
  const r = await p.http.post(
    '/api/bots',
    { name: `Support ${randomUUID().slice(0, 6)}`, knowledgeBaseIds: [kb.id], isDraft: false, ...settings },
    { token: owner.accessToken },
  );
  expect(r.status).toBe(201);
  return { agentId: r.body.bot.id as string, kbId: kb.id };
}

const billingEvents = async (owner: TestUser) =>
  (await p.http.get('/api/billing/wallet', { token: owner.accessToken })).body.events as { kind: string; model: string }[];

/** A raw POST through the gateway whose answer is read as it arrives (streams). */
async function openPost(path: string, body: unknown, headers: Record<string, string>) {
  const { hostname, port } = new URL(p.gatewayUrl);
  const req = http.request({
    host: hostname,
    port: Number(port),
    method: 'POST',
    path,
    agent: false,
    headers: { 'content-type': 'application/json', ...headers },
  });
  req.end(JSON.stringify(body));
  const [res] = (await once(req, 'response')) as [http.IncomingMessage];
  res.setEncoding('utf8');
  return { req, res };
}

async function readAll(res: http.IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of res) text += chunk as string;
  return text;
}

/** A multipart upload (fetch draws a new boundary for every request, as a client's retry would). */
async function uploadWithKey(path: string, token: string, key: string, file: { name: string; bytes: Buffer; type: string }) {
  const form = new FormData();
  form.append('file', new Blob([file.bytes], { type: file.type }), file.name);
  const res = await fetch(`${p.gatewayUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'idempotency-key': key },
    body: form,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: JSON.parse(text) };
}

describe('a retried create', () => {
  it('creating an agent twice with one key makes one agent; the second answer is the first, replayed', async () => {
    const owner = await registerUser(p.http, { label: 'idem-create' });
    const key = randomUUID();
    const body = { name: 'Once only', knowledgeBaseIds: [], isDraft: true };
    const first = await p.http.post('/api/bots', body, keyed(key, owner.accessToken));
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const second = await p.http.post('/api/bots', body, keyed(key.toUpperCase(), owner.accessToken));
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(second.text).toBe(first.text);
    const agents = await p.http.get('/api/bots', { token: owner.accessToken });
    expect(JSON.stringify(agents.body).match(/Once only/g)).toHaveLength(1);
  });

  it('refuses another body under the same key (409 idempotency_key_reused) and a key that is not a UUID (400)', async () => {
    const owner = await registerUser(p.http, { label: 'idem-reuse' });
    const key = randomUUID();
    const first = await p.http.post(
      '/api/bots',
      { name: 'First body', knowledgeBaseIds: [], isDraft: true },
      keyed(key, owner.accessToken),
    );
    expect(first.status).toBe(201);
    const other = await p.http.post(
      '/api/bots',
      { name: 'Other body', knowledgeBaseIds: [], isDraft: true },
      keyed(key, owner.accessToken),
    );
    expect(other.status).toBe(409);
    expect(other.body).toEqual({ error: 'idempotency_key_reused', message: expect.any(String), code: 'IDEMPOTENCY_KEY_REUSED' });
    // Another path under the key is another request too.
    const kb = await p.http.post('/api/knowledge/kb', { name: 'First body' }, keyed(key, owner.accessToken));
    expect(kb.status).toBe(409);
    expect(kb.body.error).toBe('idempotency_key_reused');

    const malformed = await p.http.post(
      '/api/bots',
      { name: 'Bad key', knowledgeBaseIds: [], isDraft: true },
      keyed('not-a-uuid', owner.accessToken),
    );
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ error: 'Validation Error', message: 'Idempotency-Key must be a UUID', code: 'VALIDATION' });
    const agents = JSON.stringify((await p.http.get('/api/bots', { token: owner.accessToken })).body);
    expect(agents).not.toContain('Other body');
    expect(agents).not.toContain('Bad key');
  });

  it('keys are per organization: the same key and body in another organization runs anew', async () => {
    const [a, b] = [await registerUser(p.http, { label: 'idem-org-a' }), await registerUser(p.http, { label: 'idem-org-b' })];
    const key = randomUUID();
    const body = { name: 'Shared name', knowledgeBaseIds: [], isDraft: true };
    const inA = await p.http.post('/api/bots', body, keyed(key, a.accessToken));
    const inB = await p.http.post('/api/bots', body, keyed(key, b.accessToken));
    expect([inA.status, inB.status]).toEqual([201, 201]);
    expect(inB.headers.get('idempotent-replayed')).toBeNull();
    expect(inB.body.bot.id).not.toBe(inA.body.bot.id);
    const againInA = await p.http.post('/api/bots', body, keyed(key, a.accessToken));
    expect(againInA.headers.get('idempotent-replayed')).toBe('true');
    expect(againInA.body.bot.id).toBe(inA.body.bot.id);
    const againInB = await p.http.post('/api/bots', body, keyed(key, b.accessToken));
    expect(againInB.body.bot.id).toBe(inB.body.bot.id);
  });
});

describe('chat', () => {
  it('a JSON chat sent twice with one key makes one conversation, one answer and one billing event', async () => {
    const owner = await registerUser(p.http, { label: 'idem-chat' });
    const { agentId } = await chatAgent(owner);
    const key = randomUUID();
    const turn = { message: 'When are refunds paid?' };
    const first = await p.http.post(`/api/bots/${agentId}/chat`, turn, keyed(key, owner.accessToken));
    expect(first.status).toBe(200);
    expect(first.body.response).toMatch(/fourteen days/);
    const second = await p.http.post(`/api/bots/${agentId}/chat`, turn, keyed(key, owner.accessToken));
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.text).toBe(first.text);

    const conversations = await p.infra.db.knex('conversations').where({ organization_id: owner.orgId, agent_id: agentId }).select('id');
    expect(conversations.map((c) => c.id)).toEqual([first.body.conversationId]);
    const messages = await p.http.get(`/api/conversations/${first.body.conversationId}/messages`, { token: owner.accessToken });
    expect(messages.body.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant']);
    expect((await billingEvents(owner)).filter((e) => e.kind === 'chat')).toHaveLength(1);
  });

  it('a streamed chat: a second call while the first streams is 409 idempotency_key_in_use; once done, the whole stream is replayed', async () => {
    const owner = await registerUser(p.http, { label: 'idem-stream' });
    const { agentId } = await chatAgent(owner, { model: 'test/slow', streamingEnabled: true });
    const key = randomUUID();
    const turn = { message: 'count slowly', stream: true };
    const headers = { authorization: `Bearer ${owner.accessToken}`, 'idempotency-key': key };
    const first = await openPost(`/api/bots/${agentId}/chat`, turn, headers);
    expect(first.res.statusCode).toBe(200);
    expect(first.res.headers['content-type']).toBe('text/event-stream');

    const during = await p.http.post(`/api/bots/${agentId}/chat`, turn, keyed(key, owner.accessToken));
    expect(during.status).toBe(409);
    expect(during.body).toMatchObject({ error: 'idempotency_key_in_use', code: 'IDEMPOTENCY_KEY_IN_USE' });
    expect(during.headers.get('retry-after')).toBe('1');

    const streamed = await readAll(first.res);
    const frames = sseData(streamed);
    expect(frames[frames.length - 1]).toMatchObject({ done: true });
    const replay = await openPost(`/api/bots/${agentId}/chat`, turn, headers);
    expect(replay.res.statusCode).toBe(200);
    expect(replay.res.headers['idempotent-replayed']).toBe('true');
    expect(replay.res.headers['content-type']).toBe('text/event-stream');
    expect(await readAll(replay.res)).toBe(streamed);
    expect((await billingEvents(owner)).filter((e) => e.model === 'test/slow')).toHaveLength(1);
  });

  it('a stream the client cut off is not run again under its key: 409 idempotency_answer_unavailable', async () => {
    const owner = await registerUser(p.http, { label: 'idem-cut' });
    const { agentId } = await chatAgent(owner, { model: 'test/slow', streamingEnabled: true });
    const key = randomUUID();
    const turn = { message: 'count slowly', stream: true };
    const { req, res } = await openPost(`/api/bots/${agentId}/chat`, turn, {
      authorization: `Bearer ${owner.accessToken}`,
      'idempotency-key': key,
    });
    let tokens = 0;
    for await (const c of res) {
      tokens += sseData(c as string).filter((f) => f.token).length;
      if (tokens >= 2) break;
    }
    req.destroy();
    const retry = await waitFor(async () => {
      const r = await p.http.post(`/api/bots/${agentId}/chat`, turn, keyed(key, owner.accessToken));
      return r.body?.error === 'idempotency_key_in_use' ? null : r;
    }, 'the cut stream to be settled');
    expect(retry.status).toBe(409);
    expect(retry.body).toMatchObject({ error: 'idempotency_answer_unavailable', code: 'IDEMPOTENCY_ANSWER_UNAVAILABLE' });
    const events = await waitFor(async () => {
      const found = (await billingEvents(owner)).filter((e) => e.model === 'test/slow');
      return found.length ? found : null;
    }, 'the billing event of the cut stream');
    expect(events).toHaveLength(1);
  });

  it('a 5xx answer is not kept: the retry with the key runs, and its answer is what is replayed after', async () => {
    const owner = await registerUser(p.http, { label: 'idem-5xx' });
    const { agentId } = await chatAgent(owner, { model: 'test/flaky' });
    const key = randomUUID();
    const turn = { message: 'Are you there?' };
    flaky.error = new Error('provider exploded');
    try {
      const failed = await p.http.post(`/api/bots/${agentId}/chat`, turn, keyed(key, owner.accessToken));
      expect(failed.status).toBeGreaterThanOrEqual(500);
    } finally {
      flaky.error = null;
    }
    const retried = await p.http.post(`/api/bots/${agentId}/chat`, turn, keyed(key, owner.accessToken));
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(retried.body.response).toBe('A steady answer.');
    const replayed = await p.http.post(`/api/bots/${agentId}/chat`, turn, keyed(key, owner.accessToken));
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.text).toBe(retried.text);
  });
});

describe('uploads', () => {
  it('a document uploaded twice with one key (a new multipart boundary each time) is stored once', async () => {
    const owner = await registerUser(p.http, { label: 'idem-upload' });
    const kb = await createKb(p, owner.accessToken, { name: 'Uploads' });
    const key = randomUUID();
    const file = { name: 'notes.txt', type: 'text/plain', bytes: Buffer.from('Opening hours are nine to five on weekdays.') };
    // allowDuplicate: without the key, the second upload would store the same bytes again.
    const path = `/api/knowledge/kb/${kb.id}/documents?allowDuplicate=true`;
    const first = await uploadWithKey(path, owner.accessToken, key, file);
    expect(first.status).toBe(201);
    const second = await uploadWithKey(path, owner.accessToken, key, file);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.text).toBe(first.text);
    const docs = await p.http.get(`/api/knowledge/kb/${kb.id}/documents`, { token: owner.accessToken });
    expect(docs.body.documents.map((d: { id: string }) => d.id)).toEqual([first.body.document.id]);

    const otherFile = await uploadWithKey(path, owner.accessToken, key, { ...file, bytes: Buffer.from('Another file.') });
    expect(otherFile.status).toBe(409);
    expect(otherFile.body.error).toBe('idempotency_key_reused');
  });
});

describe('the public lane', () => {
  it('keys are per anonymousId: one visitor retrying gets its conversation back, another visitor with the key starts its own', async () => {
    const owner = await registerUser(p.http, { label: 'idem-public' });
    const kb = await createKb(p, owner.accessToken, { name: 'Public policies' });
    await seedDocument(p, owner.orgId, kb.id, 'refund-policy.txt', REFUND_TEXT);
    const agent = await distributedAgent(p, owner, kb.id);
    const key = randomUUID();
    const [visitor, other] = [randomUUID(), randomUUID()];
    const first = await p.http.post(`${base(agent.slug)}/conversations`, { anonymousId: visitor }, keyed(key));
    expect(first.status).toBe(200);
    const again = await p.http.post(`${base(agent.slug)}/conversations`, { anonymousId: visitor }, keyed(key));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data.conversationId).toBe(first.body.data.conversationId);
    const theirs = await p.http.post(`${base(agent.slug)}/conversations`, { anonymousId: other }, keyed(key));
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.data.conversationId).not.toBe(first.body.data.conversationId);
    const mine = await p.http.get(`${base(agent.slug)}/conversations?anonymousId=${visitor}`);
    expect(mine.body.conversations.map((c: { id: string }) => c.id)).toEqual([first.body.data.conversationId]);
  });
});

describe('/v1 (API key)', () => {
  it("an OpenAI-compatible completion sent twice with one key bills once; a reused key is refused in OpenAI's error shape", async () => {
    const owner = await registerUser(p.http, { label: 'idem-v1' });
    const { agentId } = await chatAgent(owner);
    const created = await p.http.post('/api/api-keys', { name: 'ci', scopes: ['agents:write'] }, { token: owner.accessToken });
    expect(created.status).toBe(201);
    const apiKey = created.body.key as string;
    const key = randomUUID();
    const body = { model: agentId, messages: [{ role: 'user', content: 'When are refunds paid?' }] };
    const first = await p.http.post('/v1/chat/completions', body, keyed(key, apiKey));
    expect(first.status).toBe(200);
    const second = await p.http.post('/v1/chat/completions', body, keyed(key, apiKey));
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.text).toBe(first.text);
    expect((await billingEvents(owner)).filter((e) => e.kind === 'chat')).toHaveLength(1);
    const reused = await p.http.post(
      '/v1/chat/completions',
      { ...body, messages: [{ role: 'user', content: 'Other' }] },
      keyed(key, apiKey),
    );
    expect(reused.status).toBe(409);
    expect(reused.body.error).toMatchObject({ code: 'idempotency_key_reused', type: 'invalid_request_error' });
  });
});

it('the OpenAPI document declares the optional Idempotency-Key header on POSTs', async () => {
  const doc = (await p.http.get('/api/openapi.json')).body;
  const header = (o: { parameters?: { in: string; name: string }[] }) =>
    o.parameters?.find((x) => x.in === 'header' && x.name === 'Idempotency-Key');
  expect(header(doc.paths['/api/bots'].post)).toMatchObject({ required: false, schema: { type: 'string', format: 'uuid' } });
  expect(header(doc.paths['/api/bots/{id}/chat'].post)).toBeDefined();
  expect(header(doc.paths['/api/bots'].get)).toBeUndefined();
});
