/**
 * Anonymous public chat end to end through the gateway (spec 4.5): a knowledge base with a document uploaded
 * and indexed by the real pipeline, an agent taken from draft to published and distributed, then a visitor's
 * conversation, sync and SSE chat, messages, rename, delete, visitor isolation, restricted agents and billing.
 */
import { randomUUID } from 'node:crypto';

import { ScriptedModel } from '../chat/fakes';
import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { joinOrganization, registerUser, type TestUser } from '../support/users';
import { base, distributedAgent, knowledgeBaseWithDocument, openStream, readUntil, sseData, startConversation } from './public-support';

const paid = new ScriptedModel('A paid answer about refunds.', { prefix: 'test/paid' });
let p: TestPlatform;
let owner: TestUser;
let kbId: string;

beforeAll(async () => {
  p = await startTestPlatform({}, { chat: { chatModels: [paid] } });
  await p.store.repos.models.upsert([
    {
      ...(await p.store.repos.models.findById('openai/gpt-4o-mini'))!,
      id: 'test/paid',
      name: 'Paid test model',
      provider: 'test',
      isFree: false,
    },
  ]);
  owner = await registerUser(p.http, { label: 'public-owner' });
  kbId = await knowledgeBaseWithDocument(p, owner);
}, BOOT_TIMEOUT_MS);
afterAll(() => p?.close(), BOOT_TIMEOUT_MS);

const wallet = async (user = owner) => (await p.http.get('/api/billing/wallet', { token: user.accessToken })).body;

describe('a visitor of a distributed agent', () => {
  it('reads the public agent, starts a conversation with the live welcome, chats (JSON and SSE), reads, renames and deletes it', async () => {
    const agent = await distributedAgent(p, owner, kbId);
    const saved = await p.http.post(
      `/api/bots/${agent.id}/prompt-config-versions`,
      { sections: [{ promptType: 'welcome', mode: 'fixed', content: 'Hello, I am {{agent.name}}.' }] },
      { token: owner.accessToken },
    );
    expect(saved.status).toBe(201);
    expect((await p.http.request('PUT', `/api/bots/${agent.id}/prompt-live`, { body: {}, token: owner.accessToken })).status).toBe(200);

    const info = await p.http.get(base(agent.slug));
    expect(info.status).toBe(200);
    expect(info.body).toMatchObject({
      id: agent.id,
      slug: agent.slug,
      model: 'local/extractive',
      streamingEnabled: true,
      fileUploadsEnabled: false,
      voiceEnabled: false,
      restricted: false,
      modelInputModalities: expect.any(Array),
    });
    expect(info.body.welcome).toEqual({ mode: 'fixed', message: expect.stringMatching(/^Hello, I am Public /) });
    expect(info.body).not.toHaveProperty('organizationId');
    expect(info.body).not.toHaveProperty('systemPrompt');

    const visitor = randomUUID();
    const started = await p.http.post(`${base(agent.slug)}/conversations`, { anonymousId: visitor });
    expect(started.status).toBe(200);
    expect(started.body).toEqual({
      success: true,
      data: { conversationId: expect.any(String), welcomeMessage: info.body.welcome.message },
    });
    const conversationId = started.body.data.conversationId;

    const before = await wallet();
    const answer = await p.http.post(`${base(agent.slug)}/chat`, {
      message: 'When are refunds paid?',
      conversationId,
      anonymousId: visitor,
    });
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body).sort()).toEqual(['conversationId', 'response', 'usage']);
    expect(answer.body.conversationId).toBe(conversationId);
    expect(answer.body.response).toMatch(/fourteen days/);
    expect(answer.body.usage).toEqual({
      promptTokens: expect.any(Number),
      completionTokens: expect.any(Number),
      totalTokens: expect.any(Number),
      cost: 0,
    });
    const after = await wallet();
    expect(after.events[0]).toMatchObject({ kind: 'chat', model: 'local/extractive', costUsd: 0 });
    expect(after.events.length).toBe(before.events.length + 1);

    const { res } = await openStream(p, 'POST', `${base(agent.slug)}/chat`, {
      message: 'Is shipping free?',
      conversationId,
      anonymousId: visitor,
      stream: true,
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream');
    const frames = sseData(await readUntil(res, () => false));
    const done = frames[frames.length - 1];
    const tokens = frames.slice(0, -1);
    expect(tokens.length).toBeGreaterThan(1);
    expect(tokens.every((f) => Object.keys(f).join() === 'token')).toBe(true);
    expect(done).toEqual({ done: true, usage: expect.objectContaining({ cost: 0 }), conversationId });
    expect(done).not.toHaveProperty('sources');

    const messages = await p.http.get(`${base(agent.slug)}/conversations/${conversationId}/messages?anonymousId=${visitor}`);
    expect(messages.status).toBe(200);
    expect(messages.body.messages.map((m: any) => m.role)).toEqual(['assistant', 'user', 'assistant', 'user', 'assistant']);
    expect(messages.body.messages[0].content).toBe(info.body.welcome.message);
    expect(messages.body.messages[4].content).toBe(tokens.map((f) => f.token).join(''));
    expect(messages.body.messages[2]).not.toHaveProperty('sources');
    const paged = await p.http.get(`${base(agent.slug)}/conversations/${conversationId}/messages?anonymousId=${visitor}&limit=2&offset=1`);
    expect(paged.body.messages.map((m: any) => m.content)).toEqual(['When are refunds paid?', answer.body.response]);

    const list = await p.http.get(`${base(agent.slug)}/conversations?anonymousId=${visitor}`);
    expect(list.body).toEqual({
      conversations: [
        {
          id: conversationId,
          title: 'When are refunds paid?',
          messageCount: 5,
          createdAt: expect.any(String),
          updatedAt: expect.any(String),
        },
      ],
      pagination: { limit: 20, offset: 0, total: 1, hasMore: false },
    });

    const renamed = await p.http.patch(`${base(agent.slug)}/conversations/${conversationId}`, { anonymousId: visitor, title: 'Refunds' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.conversation).toMatchObject({ id: conversationId, title: 'Refunds', messageCount: 5 });
    expect(
      (await p.http.patch(`${base(agent.slug)}/conversations/${conversationId}`, { anonymousId: visitor, title: 'x'.repeat(81) })).status,
    ).toBe(400);
    expect((await p.http.patch(`${base(agent.slug)}/conversations/${conversationId}`, { anonymousId: visitor, title: '' })).status).toBe(
      400,
    );

    const deleted = await p.http.delete(`${base(agent.slug)}/conversations/${conversationId}?anonymousId=${visitor}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ success: true });
    expect((await p.http.get(`${base(agent.slug)}/conversations?anonymousId=${visitor}`)).body.pagination.total).toBe(0);
    expect((await p.http.get(`${base(agent.slug)}/conversations/${conversationId}/messages?anonymousId=${visitor}`)).status).toBe(404);
    expect((await p.http.post(`${base(agent.slug)}/chat`, { message: 'hi', conversationId, anonymousId: visitor })).status).toBe(404);
  });

  it('never shows one visitor the conversations of another (404 everywhere), and requires a UUID anonymousId', async () => {
    const agent = await distributedAgent(p, owner, kbId);
    const alice = randomUUID();
    const bob = randomUUID();
    const conversationId = await startConversation(p, agent.slug, alice);
    await p.http.post(`${base(agent.slug)}/chat`, { message: 'refunds?', conversationId, anonymousId: alice });

    expect((await p.http.get(`${base(agent.slug)}/conversations?anonymousId=${bob}`)).body).toMatchObject({
      conversations: [],
      pagination: { total: 0 },
    });
    expect((await p.http.get(`${base(agent.slug)}/conversations/${conversationId}/messages?anonymousId=${bob}`)).status).toBe(404);
    expect(
      (await p.http.patch(`${base(agent.slug)}/conversations/${conversationId}`, { anonymousId: bob, title: 'Mine now' })).status,
    ).toBe(404);
    expect((await p.http.delete(`${base(agent.slug)}/conversations/${conversationId}?anonymousId=${bob}`)).status).toBe(404);
    expect((await p.http.post(`${base(agent.slug)}/chat`, { message: 'hi', conversationId, anonymousId: bob })).status).toBe(404);
    expect((await p.http.get(`${base(agent.slug)}/conversations/${conversationId}/events?anonymousId=${bob}`)).status).toBe(404);
    // Alice's conversation is not reachable through another agent's slug either.
    const other = await distributedAgent(p, owner, kbId);
    expect((await p.http.get(`${base(other.slug)}/conversations/${conversationId}/messages?anonymousId=${alice}`)).status).toBe(404);
    expect(
      (await p.http.get(`${base(agent.slug)}/conversations/${conversationId}/messages?anonymousId=${alice}`)).body.messages,
    ).toHaveLength(2);

    const bad = await p.http.post(`${base(agent.slug)}/conversations`, { anonymousId: 'visitor-1' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('Validation Error');
    expect((await p.http.get(`${base(agent.slug)}/conversations`)).status).toBe(400);
    expect((await p.http.post(`${base(agent.slug)}/chat`, { message: 'hi', anonymousId: alice })).status).toBe(400);
  });

  it('serves only published, distributed agents: unknown slug, undistributed or unpublished agent: 404', async () => {
    expect((await p.http.get(base('no-such-agent'))).status).toBe(404);
    const agent = await distributedAgent(p, owner, kbId);
    const unpublished = await p.http.request('PUT', `/api/bots/${agent.id}`, { body: { isDraft: true }, token: owner.accessToken });
    expect(unpublished.status).toBe(200);
    expect((await p.http.get(base(agent.slug))).status).toBe(404);
    expect((await p.http.post(`${base(agent.slug)}/conversations`, { anonymousId: randomUUID() })).status).toBe(404);
  });
});

describe('restricted agents', () => {
  it('are served only to verified members of the organization (and of an allowed group); anonymous callers and outsiders get 404', async () => {
    const member = await joinOrganization(p.http, owner, owner.orgId, await registerUser(p.http, { label: 'public-member' }), 'viewer');
    const outsider = await registerUser(p.http, { label: 'public-outsider' });
    const members = await distributedAgent(p, owner, kbId, {}, { require_org_membership: true });
    // Group restrictions name real user groups (docs/contracts.md "Groups"): the member is in the allowed group.
    const group = await p.http.post(`/api/organizations/${owner.orgId}/groups`, { name: 'Public members' }, { token: owner.accessToken });
    expect(group.status).toBe(201);
    const added = await p.http.request('PUT', `/api/organizations/${owner.orgId}/groups/${group.body.group.id}/members/${member.id}`, {
      token: owner.accessToken,
    });
    expect(added.status).toBe(204);
    const groups = await distributedAgent(p, owner, kbId, {}, { allowed_group_ids: [group.body.group.id] });
    for (const agent of [members, groups]) {
      expect((await p.http.get(base(agent.slug))).status).toBe(404);
      expect((await p.http.get(base(agent.slug), { token: outsider.accessToken })).status).toBe(404);
      const served = await p.http.get(base(agent.slug), { token: member.accessToken });
      expect(served.status).toBe(200);
      expect(served.body).toMatchObject({ id: agent.id, restricted: true });
      expect((await p.http.post(`${base(agent.slug)}/conversations`, { anonymousId: randomUUID() })).status).toBe(404);
      const visitor = randomUUID();
      const started = await p.http.post(`${base(agent.slug)}/conversations`, { anonymousId: visitor }, { token: member.accessToken });
      expect(started.status).toBe(200);
      const conversationId = started.body.data.conversationId;
      expect(
        (
          await p.http.post(
            `${base(agent.slug)}/chat`,
            { message: 'refunds?', conversationId, anonymousId: visitor },
            { token: member.accessToken },
          )
        ).status,
      ).toBe(200);
      expect((await p.http.post(`${base(agent.slug)}/chat`, { message: 'refunds?', conversationId, anonymousId: visitor })).status).toBe(
        404,
      );
    }
    // An invalid token on the public lane is refused by the gateway, not treated as anonymous.
    expect((await p.http.get(base(members.slug), { token: 'not-a-token' })).status).toBe(401);
    // Marketplace lists neither.
    const market = await p.http.get('/marketplace/agents?limit=200');
    expect(market.body.agents.map((a: any) => a.slug)).not.toEqual(expect.arrayContaining([members.slug]));
  });
});

describe('billing', () => {
  it("bills the agent's organization for a paid model, and refuses with 402 when its wallet is empty", async () => {
    const agent = await distributedAgent(p, owner, kbId, { model: 'test/paid' });
    const visitor = randomUUID();
    const conversationId = await startConversation(p, agent.slug, visitor);
    const before = (await wallet()).wallet.balance;
    const r = await p.http.post(`${base(agent.slug)}/chat`, { message: 'refunds?', conversationId, anonymousId: visitor });
    expect(r.status).toBe(200);
    expect(r.body.response).toBe(paid.reply);
    expect(r.body.usage.cost).toBeGreaterThan(0);
    const after = await wallet();
    expect(after.wallet.balance).toBeCloseTo(before - r.body.usage.cost, 8);
    expect(after.events[0]).toMatchObject({ kind: 'chat', model: 'test/paid' });

    await p.store.repos.wallets.adjust(owner.orgId, -after.wallet.balance, new Date().toISOString());
    const calls = paid.requests.length;
    const refused = await p.http.post(`${base(agent.slug)}/chat`, { message: 'again?', conversationId, anonymousId: visitor });
    expect(refused.status).toBe(402);
    expect(refused.body.error).toBe('insufficient_credits');
    expect(paid.requests.length).toBe(calls);
    await p.store.repos.wallets.adjust(owner.orgId, 5, new Date().toISOString());
  });
});
