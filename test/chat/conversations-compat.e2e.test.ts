/**
 * Conversations, variables, context tokens and the OpenAI-compatible endpoint end to end through the gateway
 * (local model; the official `openai` npm client for /v1).
 */
import OpenAI from 'openai';

import { startTestPlatform, type TestPlatform } from '../support/platform';
import { joinOrganization, registerUser, type TestUser } from '../support/users';
import { seedDocument } from './seed-knowledge';

let p: TestPlatform;
let owner: TestUser;
let stranger: TestUser;
let agentId: string;

beforeAll(async () => {
  p = await startTestPlatform();
  owner = await registerUser(p.http, { label: 'conv-owner' });
  stranger = await registerUser(p.http, { label: 'conv-stranger' });
  const kb = await p.http.post('/api/knowledge/kb', { name: 'Handbook' }, { token: owner.accessToken });
  await seedDocument(p, owner.orgId, kb.body.knowledgeBase.id, 'handbook.txt', [
    'Refunds are paid within fourteen days of the request.',
    'Support answers email within one business day.',
  ]);
  const agent = await p.http.post(
    '/api/bots',
    { name: 'Helper', knowledgeBaseIds: [kb.body.knowledgeBase.id], systemPrompt: 'Assist {{user.name}} (account {{user.account}}).' },
    { token: owner.accessToken },
  );
  agentId = agent.body.bot.id;
});
afterAll(() => p?.close());

const auth = (u: TestUser) => ({ token: u.accessToken });

describe('conversations', () => {
  it('creates a conversation with the live welcome message rendered with its variables, then chats in it', async () => {
    const none = await p.http.post(`/api/bots/${agentId}/conversations`, {}, auth(owner));
    expect(none.status).toBe(201);
    expect(none.body).toEqual({ success: true, data: { conversationId: expect.any(String), welcomeMessage: null } });

    const saved = await p.http.post(
      `/api/bots/${agentId}/prompt-config-versions`,
      { sections: [{ promptType: 'welcome', mode: 'fixed', content: 'Hello {{user.name}}, I am {{agent.name}}.' }] },
      auth(owner),
    );
    expect(saved.status).toBe(201);
    expect((await p.http.request('PUT', `/api/bots/${agentId}/prompt-live`, { body: {}, ...auth(owner) })).status).toBe(200);
    const created = await p.http.post(`/api/bots/${agentId}/conversations`, { variables: { name: 'Ada' } }, auth(owner));
    expect(created.body.data.welcomeMessage).toBe('Hello Ada, I am Helper.');
    const conversationId = created.body.data.conversationId;

    const answer = await p.http.post(`/api/bots/${agentId}/chat`, { message: 'When are refunds paid?', conversationId }, auth(owner));
    expect(answer.status).toBe(200);
    expect(answer.body.conversationId).toBe(conversationId);
    const messages = await p.http.get(`/api/conversations/${conversationId}/messages`, auth(owner));
    expect(messages.body.messages.map((m: any) => m.role)).toEqual(['assistant', 'user', 'assistant']);
    expect(messages.body.messages[0].content).toBe('Hello Ada, I am Helper.');

    const got = await p.http.get(`/api/conversations/${conversationId}`, auth(owner));
    expect(got.body.conversation).toMatchObject({
      id: conversationId,
      botId: agentId,
      platform: 'web',
      messageCount: 3,
      variables: { name: 'Ada' },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
  });

  it("lists the caller's conversations with filters and pagination", async () => {
    const me = await registerUser(p.http, { label: 'lister' });
    const kb = await p.http.post('/api/knowledge/kb', { name: 'Mine' }, auth(me));
    await seedDocument(p, me.orgId, kb.body.knowledgeBase.id, 'mine.txt', ['Refunds are paid within fourteen days.']);
    const bot = (await p.http.post('/api/bots', { name: 'Mine', knowledgeBaseIds: [kb.body.knowledgeBase.id] }, auth(me))).body.bot.id;
    for (const m of ['one', 'two', 'three'])
      expect((await p.http.post(`/api/bots/${bot}/chat`, { message: m }, auth(me))).status).toBe(200);
    await p.http.post(`/api/bots/${bot}/preview-chat`, { message: 'preview' }, auth(me));
    const page = await p.http.get(`/api/conversations?botId=${bot}&platform=web&limit=2`, auth(me));
    expect(page.status).toBe(200);
    expect(page.body.pagination).toEqual({ limit: 2, offset: 0, total: 3, hasMore: true });
    expect(page.body.conversations[0]).toMatchObject({ botId: bot, platform: 'web', messageCount: 2 });
    expect((await p.http.get('/api/conversations', auth(me))).body.pagination).toEqual({ limit: 50, offset: 0, total: 4, hasMore: false });
    expect((await p.http.get('/api/conversations?platform=preview', auth(me))).body.conversations).toHaveLength(1);
    // A member sees only their own; the owner (me) may read a member's list.
    const member = await joinOrganization(p.http, me, me.orgId, await registerUser(p.http, { label: 'lister-member' }), 'member');
    expect((await p.http.get(`/api/conversations?userId=${me.id}`, auth(member))).status).toBe(403);
    expect((await p.http.get('/api/conversations', auth(member))).body.pagination.total).toBe(0);
    expect((await p.http.get(`/api/conversations?userId=${member.id}`, auth(me))).status).toBe(200);
  });

  it('keeps sensitive variables out of every response while the prompt uses them; context tokens carry them; tampering is 400', async () => {
    const conv = (await p.http.post(`/api/bots/${agentId}/conversations`, { variables: { name: 'Bo' } }, auth(owner))).body.data
      .conversationId;
    const set = await p.http.post(
      `/api/bots/${agentId}/conversations/${conv}/variables`,
      { variables: { plan: 'pro', account: 'ACC-77' }, sensitive: ['account'] },
      auth(owner),
    );
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ variables: { name: 'Bo', plan: 'pro' }, sensitive: ['account'] });
    const read = await p.http.get(`/api/bots/${agentId}/conversations/${conv}/variables`, auth(owner));
    expect(read.body).toEqual({ variables: { name: 'Bo', plan: 'pro' }, sensitive: ['account'] });
    expect((await p.http.get(`/api/conversations/${conv}`, auth(owner))).text).not.toContain('ACC-77');
    const row = await p.infra.db.knex('conversations').where({ id: conv }).first();
    expect(row.sensitive_variables).toEqual({ account: 'ACC-77' });

    const token = await p.http.post(
      `/api/bots/${agentId}/context-token`,
      { variables: { account: 'ACC-88' }, expiresInSeconds: 600 },
      auth(owner),
    );
    expect(token.status).toBe(200);
    expect(token.body).toEqual({
      contextToken: expect.stringMatching(/^ctx1\./),
      expiresAt: expect.any(String),
      variableNames: ['account'],
    });
    expect(token.body.contextToken).not.toContain(Buffer.from('ACC-88').toString('base64url').slice(0, 6));
    const withToken = await p.http.post(`/api/bots/${agentId}/conversations`, { context_token: token.body.contextToken }, auth(owner));
    expect(withToken.status).toBe(201);
    const tokenConv = withToken.body.data.conversationId;
    expect((await p.http.get(`/api/bots/${agentId}/conversations/${tokenConv}/variables`, auth(owner))).body).toEqual({
      variables: {},
      sensitive: ['account'],
    });
    expect((await p.infra.db.knex('conversations').where({ id: tokenConv }).first()).sensitive_variables).toEqual({ account: 'ACC-88' });

    const t = token.body.contextToken as string;
    const tampered = `${t.slice(0, -3)}${t.slice(-3) === 'AAA' ? 'BBB' : 'AAA'}`;
    const bad = await p.http.post(`/api/bots/${agentId}/conversations`, { context_token: tampered }, auth(owner));
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('Validation Error');
  });

  it("hides another organization's agents and conversations (404)", async () => {
    const conv = (await p.http.post(`/api/bots/${agentId}/conversations`, {}, auth(owner))).body.data.conversationId;
    const s = auth(stranger);
    expect((await p.http.post(`/api/bots/${agentId}/chat`, { message: 'hi' }, s)).status).toBe(404);
    expect((await p.http.post(`/api/bots/${agentId}/preview-chat`, { message: 'hi' }, s)).status).toBe(404);
    expect((await p.http.post(`/api/bots/${agentId}/conversations`, {}, s)).status).toBe(404);
    expect((await p.http.get(`/api/conversations/${conv}`, s)).status).toBe(404);
    expect((await p.http.get(`/api/conversations/${conv}/messages`, s)).status).toBe(404);
    expect((await p.http.get(`/api/bots/${agentId}/conversations/${conv}/variables`, s)).status).toBe(404);
    expect((await p.http.post(`/api/bots/${agentId}/context-token`, { variables: {} }, s)).status).toBe(404);
    // the stranger's own agent cannot continue the owner's conversation either
    const kb = await p.http.post('/api/knowledge/kb', { name: 'S' }, s);
    const bot = (await p.http.post('/api/bots', { name: 'S', knowledgeBaseIds: [kb.body.knowledgeBase.id], isDraft: true }, s)).body.bot.id;
    expect((await p.http.post(`/api/bots/${bot}/chat`, { message: 'hi', conversationId: conv }, s)).status).toBe(404);
    expect((await p.http.get('/api/conversations', s)).body.conversations).toEqual([]);
  });
});

describe('OpenAI-compatible endpoint (/v1) with the official openai client', () => {
  let client: OpenAI;
  beforeAll(async () => {
    const key = await p.http.post('/api/api-keys', { name: 'compat', scopes: ['agents:write'] }, auth(owner));
    client = new OpenAI({ baseURL: `${p.gatewayUrl}/v1`, apiKey: key.body.key, maxRetries: 0 });
  });

  it("lists the organization's agents as models", async () => {
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toContain(agentId);
    expect(models.data.find((m) => m.id === agentId)).toMatchObject({ object: 'model', owned_by: owner.orgId });
  });

  it('answers a chat.completion with usage; history and system messages are used', async () => {
    const r = await client.chat.completions.create({
      model: agentId,
      messages: [
        { role: 'system', content: 'Answer for {{user.name}}.' },
        { role: 'user', content: 'Hello' },
        { role: 'assistant', content: 'Hi, how can I help?' },
        { role: 'user', content: 'When are refunds paid?' },
      ],
    });
    expect(r.object).toBe('chat.completion');
    expect(r.choices[0].message).toMatchObject({ role: 'assistant', content: expect.stringMatching(/fourteen days/) });
    expect(r.choices[0].finish_reason).toBe('stop');
    expect(r.usage).toMatchObject({ prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number) });
    expect(r.usage!.total_tokens).toBe(r.usage!.prompt_tokens + r.usage!.completion_tokens);
    const conv = await p.infra.db.knex('conversations').where({ agent_id: agentId, platform: 'api' }).first();
    expect(conv).toBeDefined();
  });

  it('streams chat.completion.chunk frames ending with [DONE], with usage when asked', async () => {
    const stream = await client.chat.completions.create({
      model: agentId,
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'When are refunds paid?' }],
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined;
    let finish: string | null = null;
    let chunks = 0;
    for await (const chunk of stream) {
      chunks++;
      expect(chunk.object).toBe('chat.completion.chunk');
      text += chunk.choices[0]?.delta?.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(chunks).toBeGreaterThan(3);
    expect(text).toMatch(/fourteen days/);
    expect(finish).toBe('stop');
    expect(usage?.completion_tokens).toBeGreaterThan(0);
  });

  it("refuses unknown models (404), keys without agents:write (403) and other organizations' agents (404)", async () => {
    await expect(
      client.chat.completions.create({ model: 'no-such-agent', messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toMatchObject({ status: 404 });
    const readOnly = await p.http.post('/api/api-keys', { name: 'ro', scopes: ['contacts:read'] }, auth(owner));
    const weak = new OpenAI({ baseURL: `${p.gatewayUrl}/v1`, apiKey: readOnly.body.key, maxRetries: 0 });
    await expect(weak.chat.completions.create({ model: agentId, messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({
      status: 403,
    });
    const strangerKey = await p.http.post('/api/api-keys', { name: 's', scopes: ['agents:write'] }, auth(stranger));
    const other = new OpenAI({ baseURL: `${p.gatewayUrl}/v1`, apiKey: strangerKey.body.key, maxRetries: 0 });
    await expect(other.chat.completions.create({ model: agentId, messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({
      status: 404,
    });
    expect((await other.models.list()).data.map((m) => m.id)).not.toContain(agentId);
  });

  it("shows the platform's reason through the client: errors in OpenAI's shape from the api and the gateway", async () => {
    const missing = await client.chat.completions
      .create({ model: 'no-such-agent', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
    expect(missing).toMatchObject({ type: 'invalid_request_error', code: 'not_found' });
    expect((missing as Error).message).toMatch(/^404 The model no-such-agent does not exist/);

    const invalid = await client.chat.completions.create({ model: agentId, messages: [] }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(OpenAI.BadRequestError);
    expect(invalid).toMatchObject({ type: 'invalid_request_error', param: 'messages', code: 'validation' });

    const unknownKey = new OpenAI({ baseURL: `${p.gatewayUrl}/v1`, apiKey: 'sk_live_not_a_key', maxRetries: 0 });
    const refused = await unknownKey.models.list().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(refused).toMatchObject({ type: 'authentication_error' });
    expect((refused as Error).message).toBe('401 Invalid or revoked API key');

    // The spec's own /v1 operations keep the platform's error body.
    const raw = await fetch(`${p.gatewayUrl}/v1/agents/builds/00000000-0000-0000-0000-000000000000`, {
      headers: { authorization: 'Bearer sk_live_not_a_key' },
    });
    expect(await raw.json()).toMatchObject({ error: 'Authentication Failed', code: expect.any(String) });
  });

  it('refuses client-defined tools with an OpenAI error instead of ignoring them', async () => {
    const tools = [{ type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }];
    const refused = await client.chat.completions
      .create({ model: agentId, messages: [{ role: 'user', content: 'hi' }], tools })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect(refused).toMatchObject({ param: 'tools', type: 'invalid_request_error' });
    expect((refused as Error).message).toMatch(/tools are not supported/);
    // "none" asks for no tool: answered as usual.
    const r = await client.chat.completions.create({
      model: agentId,
      messages: [{ role: 'user', content: 'When are refunds paid?' }],
      tool_choice: 'none',
    });
    expect(r.choices[0].message.content).toMatch(/fourteen days/);
  });
});
