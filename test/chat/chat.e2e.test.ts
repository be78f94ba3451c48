/**
 * Chat end to end through the gateway: a platform on PGlite, a knowledge base with an indexed document
 * (seeded directly, see seed-knowledge.ts), the local model and a priced OpenAI-compatible model served by
 * a local fake server.
 */
import { once } from 'node:events';
import http from 'node:http';

import { FakeOpenAi, openAiErrorBody } from '../fakes/fake-openai';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { registerUser, type TestUser } from '../support/users';
import { ScriptedModel } from './fakes';
import { seedDocument, sseData } from './seed-knowledge';

const REFUND_TEXT = ['Refunds are paid within fourteen days of the request.', 'Shipping is free for orders above fifty euros.'];
const slow = new ScriptedModel(Array.from({ length: 40 }, (_, i) => `word${i}`).join(' '), { prefix: 'test/slow', delayMs: 20 });
const fake = new FakeOpenAi();
let p: TestPlatform;
let owner: TestUser;
let kbId: string;

beforeAll(async () => {
  await fake.start();
  // The OpenAI-compatible provider is chosen through configuration, as in production; only chat and speech.
  p = await startTestPlatform(
    {
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: fake.baseURL,
      OPENAI_MAX_RETRIES: '0',
      EMBEDDINGS_PROVIDER: 'local',
      VISION_PROVIDER: 'none',
      TRANSCRIPTION_PROVIDER: 'none',
    },
    { chat: { chatModels: [slow] } },
  );
  await p.store.repos.models.upsert([
    { ...(await p.store.repos.models.findById('openai/gpt-4o-mini'))!, id: 'test/slow', name: 'Slow test model', provider: 'test' },
  ]);
  owner = await registerUser(p.http, { label: 'chat-owner' });
  const kb = await p.http.post('/api/knowledge/kb', { name: 'Policies' }, { token: owner.accessToken });
  expect(kb.status).toBe(201);
  kbId = kb.body.knowledgeBase.id;
  await seedDocument(p, owner.orgId, kbId, 'refund-policy.txt', REFUND_TEXT, { summary: 'Refunds and shipping' });
});
afterAll(async () => {
  await p?.close();
  await fake.close();
});

async function createAgent(body: Record<string, unknown> = {}, user = owner) {
  const r = await p.http.post(
    '/api/bots',
    { name: 'Support', knowledgeBaseIds: [kbId], isDraft: false, ...body },
    { token: user.accessToken },
  );
  expect(r.status).toBe(201);
  return r.body.bot.id as string;
}

const wallet = async (user = owner) => (await p.http.get('/api/billing/wallet', { token: user.accessToken })).body;

/** A raw streaming request through the gateway: the response and its frames as they arrive. */
async function openStream(path: string, body: unknown, token: string) {
  const { hostname, port } = new URL(p.gatewayUrl);
  const req = http.request({
    host: hostname,
    port: Number(port),
    method: 'POST',
    path,
    agent: false,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  });
  req.end(JSON.stringify(body));
  const [res] = (await once(req, 'response')) as [http.IncomingMessage];
  res.setEncoding('utf8');
  return { req, res };
}

describe('chat with the local model', () => {
  it('answers from the knowledge base with sources and usage, saves both messages, records a 0-cost billing event and leaves the wallet alone', async () => {
    const agentId = await createAgent();
    const before = await wallet();
    const r = await p.http.post(`/api/bots/${agentId}/chat`, { message: 'When are refunds paid?' }, { token: owner.accessToken });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['conversationId', 'messageId', 'response', 'sources', 'usage']);
    expect(r.body.response).toMatch(/fourteen days/);
    expect(r.body.sources[0]).toEqual({
      content: REFUND_TEXT[0],
      score: expect.any(Number),
      documentTitle: 'refund-policy.txt',
      knowledgeBaseId: kbId,
    });
    expect(r.body.sources[0].score).toBeGreaterThan(0);
    expect(r.body.sources[0].score).toBeLessThanOrEqual(1);
    expect(r.body.usage).toEqual({
      promptTokens: expect.any(Number),
      completionTokens: expect.any(Number),
      totalTokens: expect.any(Number),
      cost: 0,
    });
    expect(r.body.usage.totalTokens).toBe(r.body.usage.promptTokens + r.body.usage.completionTokens);

    const after = await wallet();
    expect(after.wallet.balance).toBe(before.wallet.balance);
    expect(after.events[0]).toMatchObject({
      kind: 'chat',
      model: 'local/extractive',
      costUsd: 0,
      completionTokens: r.body.usage.completionTokens,
    });
    const messages = await p.http.get(`/api/conversations/${r.body.conversationId}/messages`, { token: owner.accessToken });
    expect(messages.body.messages.map((m: any) => [m.role, m.content])).toEqual([
      ['user', 'When are refunds paid?'],
      ['assistant', r.body.response],
    ]);
    expect(messages.body.messages[1]).toMatchObject({
      id: r.body.messageId,
      sources: r.body.sources,
      usage: r.body.usage,
      model: 'local/extractive',
    });
  });

  it('streams SSE token frames and a final done frame when asked and the agent has streaming on; JSON otherwise', async () => {
    const agentId = await createAgent();
    const { res } = await openStream(`/api/bots/${agentId}/chat`, { message: 'When are refunds paid?', stream: true }, owner.accessToken);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['x-accel-buffering']).toBe('no');
    let text = '';
    for await (const c of res) text += c;
    const frames = sseData(text);
    const done = frames[frames.length - 1];
    const tokens = frames.slice(0, -1);
    expect(tokens.length).toBeGreaterThan(1);
    expect(tokens.every((f) => Object.keys(f).join() === 'token')).toBe(true);
    expect(done).toMatchObject({
      done: true,
      sources: [expect.objectContaining({ documentTitle: 'refund-policy.txt' })],
      usage: { cost: 0 },
    });
    const stored = await p.http.get(`/api/conversations/${done.conversationId}/messages`, { token: owner.accessToken });
    expect(stored.body.messages[1].content).toBe(tokens.map((f) => f.token).join(''));

    const noStream = await createAgent({ streamingEnabled: false });
    const json = await p.http.post(`/api/bots/${noStream}/chat`, { message: 'refunds?', stream: true }, { token: owner.accessToken });
    expect(json.status).toBe(200);
    expect(json.headers.get('content-type')).toMatch(/application\/json/);
    expect(json.body.response).toEqual(expect.any(String));
  });

  it("refuses invalid input (400), voice without voiceEnabled (400), and another organization's agent (404)", async () => {
    const agentId = await createAgent();
    expect((await p.http.post(`/api/bots/${agentId}/chat`, { message: '' }, { token: owner.accessToken })).status).toBe(400);
    const long = await p.http.post(`/api/bots/${agentId}/chat`, { message: 'x'.repeat(10_001) }, { token: owner.accessToken });
    expect(long.body.error).toBe('Validation Error');
    expect(
      (await p.http.post(`/api/bots/${agentId}/chat`, { message: 'hi', systemPrompt: 'y'.repeat(10_001) }, { token: owner.accessToken }))
        .status,
    ).toBe(400);
    const voice = await p.http.post(`/api/bots/${agentId}/chat`, { message: 'hi', includeVoice: true }, { token: owner.accessToken });
    expect(voice.status).toBe(400);
    expect(voice.body.message).toMatch(/voiceEnabled/);
    const stranger = await registerUser(p.http, { label: 'chat-stranger' });
    expect((await p.http.post(`/api/bots/${agentId}/chat`, { message: 'hi' }, { token: stranger.accessToken })).status).toBe(404);
  });
});

describe('chat with a priced OpenAI-compatible model', () => {
  it('bills the wallet with the margin, sends the knowledge context to the provider, and answers with voice when asked', async () => {
    const agentId = await createAgent({ model: 'openai/gpt-4o-mini', voiceEnabled: true, voiceSettings: { voice: 'nova', speed: 1.1 } });
    const before = (await wallet()).wallet.balance;
    const r = await p.http.post(
      `/api/bots/${agentId}/chat`,
      { message: 'When are refunds paid?', includeVoice: true },
      { token: owner.accessToken },
    );
    expect(r.status).toBe(200);
    expect(r.body.response).toBe(fake.reply);
    expect(r.body.usage.cost).toBeGreaterThan(0);
    const chatRequest = fake.requests.find((q) => q.path === '/v1/chat/completions')!;
    expect(chatRequest.json.model).toBe('gpt-4o-mini');
    expect(chatRequest.json.messages[0].content).toContain(REFUND_TEXT[0]);
    expect(r.body.voice).toEqual({ audioBase64: Buffer.from('ID3\u0004fake-mp3-bytes').toString('base64'), mimeType: 'audio/mpeg' });
    expect(fake.last().json).toMatchObject({ voice: 'nova', input: fake.reply });
    const after = await wallet();
    expect(after.wallet.balance).toBeCloseTo(before - r.body.usage.cost, 8);
    expect(after.events[0]).toMatchObject({ kind: 'chat', model: 'openai/gpt-4o-mini', costUsd: r.body.usage.cost });
    expect(after.events[0].costUsd).toBeCloseTo(after.events[0].providerCostUsd * 1.2, 8);
  });

  it('maps a provider credit limit to provider_limit_reached with the user-facing message', async () => {
    const agentId = await createAgent({ model: 'openai/gpt-4o-mini' });
    fake.replyOnce({ status: 429, json: openAiErrorBody('You exceeded your current quota', 'insufficient_quota', 'insufficient_quota') });
    const r = await p.http.post(`/api/bots/${agentId}/chat`, { message: 'hi' }, { token: owner.accessToken });
    expect(r.body).toMatchObject({
      error: 'provider_limit_reached',
      message: 'The assistant is temporarily unavailable. Please try again later.',
    });
  });

  it('refuses with 402 insufficient_credits before the provider is called when the wallet is empty', async () => {
    const poor = await registerUser(p.http, { label: 'chat-poor' });
    const kb = await p.http.post('/api/knowledge/kb', { name: 'Poor KB' }, { token: poor.accessToken });
    await seedDocument(p, poor.orgId, kb.body.knowledgeBase.id, 'doc.txt', REFUND_TEXT);
    const agent = await p.http.post(
      '/api/bots',
      { name: 'Paid', knowledgeBaseIds: [kb.body.knowledgeBase.id], model: 'openai/gpt-4o-mini' },
      { token: poor.accessToken },
    );
    await p.store.repos.wallets.adjust(poor.orgId, -(await wallet(poor)).wallet.balance, new Date().toISOString());
    const calls = fake.requests.length;
    const r = await p.http.post(`/api/bots/${agent.body.bot.id}/chat`, { message: 'hi' }, { token: poor.accessToken });
    expect(r.status).toBe(402);
    expect(r.body.error).toBe('insufficient_credits');
    expect(fake.requests.length).toBe(calls);
    // The free local model still answers.
    const local = await p.http.post(
      '/api/bots',
      { name: 'Free', knowledgeBaseIds: [kb.body.knowledgeBase.id] },
      { token: poor.accessToken },
    );
    expect((await p.http.post(`/api/bots/${local.body.bot.id}/chat`, { message: 'refunds?' }, { token: poor.accessToken })).status).toBe(
      200,
    );
  });
});

describe('client disconnect', () => {
  it('aborts the model mid-stream and bills exactly the tokens that were produced', async () => {
    const agentId = await createAgent({ model: 'test/slow' });
    const { req, res } = await openStream(`/api/bots/${agentId}/chat`, { message: 'count slowly', stream: true }, owner.accessToken);
    let tokens = 0;
    for await (const c of res) {
      tokens += sseData(c as string).filter((f) => f.token).length;
      if (tokens >= 3) break;
    }
    req.destroy();
    let event: any;
    for (let i = 0; i < 200 && !event; i++) {
      await new Promise((r) => setTimeout(r, 25));
      event = (await wallet()).events.find((e: any) => e.model === 'test/slow');
    }
    expect(event).toBeDefined();
    expect(slow.emitted).toBeGreaterThanOrEqual(3);
    expect(slow.emitted).toBeLessThan(40);
    expect(event.completionTokens).toBe(slow.emitted);
    expect(event.reference.finishReason).toBe('aborted');
    expect(event.costUsd).toBeGreaterThan(0);
  });
});
