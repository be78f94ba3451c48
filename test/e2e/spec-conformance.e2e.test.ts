/**
 * Issue 18, items 1-4: places where the platform and the spec disagreed, pinned through the gateway.
 *   1. docs/contracts.md "Credits": a search with a free model still records a billing event, with cost 0.
 *   2. Spec 5.1: knowledge delete-impact needs `delete` (a viewer without a grant gets 403).
 *   3. Spec 4.4: a chat that starts its conversation implicitly sends the welcome first; a generated one is billed.
 *   4. Spec 2.13: the initial prompt version v1.0 has createdBy null (later versions name their author).
 */
import { seedDocument } from '../chat/seed-knowledge';
import { createKb } from '../knowledge/knowledge-support';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { joinOrganization, registerUser, type TestUser } from '../support/users';

let p: TestPlatform;
let owner: TestUser;
let viewer: TestUser;
let kbId: string;

beforeAll(async () => {
  p = await startTestPlatform();
  owner = await registerUser(p.http, { label: 'conformance-owner', displayName: 'Olga Owner' });
  viewer = await joinOrganization(p.http, owner, owner.orgId, await registerUser(p.http, { label: 'conformance-viewer' }), 'viewer');
  kbId = (await createKb(p, owner.accessToken, { name: 'Policies' })).id;
  await seedDocument(p, owner.orgId, kbId, 'refund-policy.txt', ['Refunds are paid within fourteen days of the request.']);
});
afterAll(() => p?.close());

const as = (user: TestUser) => ({ token: user.accessToken });
const events = async () => (await p.http.get('/api/billing/wallet', as(owner))).body.events as any[];
const put = (path: string, body: unknown, user = owner) => p.http.request('PUT', path, { body, ...as(user) });

async function newAgent(name: string) {
  const r = await p.http.post('/api/bots', { name, knowledgeBaseIds: [kbId], isDraft: false }, as(owner));
  expect(r.status).toBe(201);
  return r.body.bot.id as string;
}

/** Saves a welcome section (and publishes it live unless `draftOnly`). */
async function setWelcome(agentId: string, section: Record<string, unknown>, draftOnly = false) {
  const saved = await p.http.post(
    `/api/bots/${agentId}/prompt-config-versions`,
    { sections: [{ promptType: 'welcome', ...section }] },
    as(owner),
  );
  expect(saved.status).toBe(201);
  if (!draftOnly) expect((await put(`/api/bots/${agentId}/prompt-live`, { versionId: saved.body.version.id })).status).toBe(200);
}

describe('1. free-model searches record a zero-cost billing event', () => {
  it('records one knowledge_search event with cost 0 per search on the offline embedder', async () => {
    const before = (await events()).filter((e) => e.kind === 'knowledge_search').length;
    const r = await p.http.post('/api/knowledge/search', { knowledgeBaseIds: [kbId], query: 'when are refunds paid' }, as(owner));
    expect(r.status).toBe(200);
    expect(r.body.results.length).toBeGreaterThan(0);
    const searches = (await events()).filter((e) => e.kind === 'knowledge_search');
    expect(searches).toHaveLength(before + 1);
    expect(searches[0]).toMatchObject({ costUsd: 0, providerCostUsd: 0, model: expect.stringMatching(/^local\//) });
    expect(searches[0].reference).toMatchObject({ knowledgeBaseIds: [kbId], source: 'manual' });
  });
});

describe('2. knowledge delete-impact needs delete on the agent', () => {
  it('gives a viewer without a grant 403, and 200 once granted delete', async () => {
    const id = await newAgent('Impact');
    const path = `/api/knowledge/agents/${id}/delete-impact`;
    expect((await p.http.get(path, as(owner))).status).toBe(200);
    const refused = await p.http.get(path, as(viewer));
    expect({ status: refused.status, error: refused.body.error }).toEqual({ status: 403, error: 'Forbidden' });
    // read alone (which the viewer has) is not enough: only delete opens it
    expect((await p.http.get(`/api/knowledge/agents/${id}/kbs`, as(viewer))).status).toBe(200);
    expect((await put(`/api/bots/${id}/grants/${viewer.id}`, { permissions: ['delete'] })).status).toBe(200);
    expect((await p.http.get(path, as(viewer))).status).toBe(200);
  });
});

describe('3. a chat that starts its conversation sends the welcome first', () => {
  it('stores the rendered fixed welcome as the first message of the new conversation', async () => {
    const id = await newAgent('Greeter');
    await setWelcome(id, { mode: 'fixed', content: 'Welcome to {{agent.name}}!' });
    const chat = await p.http.post(`/api/bots/${id}/chat`, { message: 'When are refunds paid?' }, as(owner));
    expect(chat.status).toBe(200);
    const messages = await p.http.get(`/api/conversations/${chat.body.conversationId}/messages`, as(owner));
    expect(messages.status).toBe(200);
    const list = messages.body.messages as any[];
    expect(list.map((m) => [m.role, m.content])).toEqual([
      ['assistant', 'Welcome to Greeter!'],
      ['user', 'When are refunds paid?'],
      ['assistant', chat.body.response],
    ]);

    // Continuing the conversation adds no second welcome.
    await p.http.post(`/api/bots/${id}/chat`, { message: 'And shipping?', conversationId: chat.body.conversationId }, as(owner));
    const again = (await p.http.get(`/api/conversations/${chat.body.conversationId}/messages`, as(owner))).body.messages as any[];
    expect(again.filter((m) => m.content === 'Welcome to Greeter!')).toHaveLength(1);
    expect(again).toHaveLength(5);
  });

  it('bills a generated welcome (welcome_message, cost 0 on a free model) and stores it first', async () => {
    const id = await newAgent('Generated greeter');
    await setWelcome(id, { mode: 'generated', prompt: 'Greet the visitor and mention refunds.' });
    const before = (await events()).filter((e) => e.kind === 'welcome_message').length;
    const chat = await p.http.post(`/api/bots/${id}/chat`, { message: 'Hello' }, as(owner));
    expect(chat.status).toBe(200);
    const welcomes = (await events()).filter((e) => e.kind === 'welcome_message');
    expect(welcomes).toHaveLength(before + 1);
    expect(welcomes[0]).toMatchObject({ costUsd: 0, reference: { agentId: id, conversationId: chat.body.conversationId } });
    const list = (await p.http.get(`/api/conversations/${chat.body.conversationId}/messages`, as(owner))).body.messages as any[];
    expect(list[0]).toMatchObject({ role: 'assistant' });
    expect(list[0].content.length).toBeGreaterThan(0);
    expect(list[1]).toMatchObject({ role: 'user', content: 'Hello' });
  });

  it('preview chat uses the draft welcome; no welcome section means no welcome', async () => {
    const id = await newAgent('Drafty');
    await setWelcome(id, { mode: 'fixed', content: 'Draft hello' }, true);
    const live = await p.http.post(`/api/bots/${id}/chat`, { message: 'Hi' }, as(owner));
    const liveMessages = (await p.http.get(`/api/conversations/${live.body.conversationId}/messages`, as(owner))).body.messages as any[];
    expect(liveMessages.map((m) => m.role)).toEqual(['user', 'assistant']);
    const preview = await p.http.post(`/api/bots/${id}/preview-chat`, { message: 'Hi' }, as(owner));
    expect(preview.status).toBe(200);
    const previewMessages = (await p.http.get(`/api/conversations/${preview.body.conversationId}/messages`, as(owner))).body
      .messages as any[];
    expect(previewMessages[0]).toMatchObject({ role: 'assistant', content: 'Draft hello' });
  });
});

describe('4. the initial prompt version has no author', () => {
  it('lists v1.0 with createdBy null and v1.1 with its author', async () => {
    const id = await newAgent('Versioned');
    const first = await p.http.post(`/api/bots/${id}/prompt-config-versions`, { sections: [] }, as(owner));
    const second = await p.http.post(`/api/bots/${id}/prompt-config-versions`, { sections: [] }, as(owner));
    expect([first.status, second.status]).toEqual([201, 201]);
    const list = await p.http.get(`/api/bots/${id}/prompt-config-versions`, as(owner));
    const byVersion = Object.fromEntries(list.body.versions.map((v: any) => [`v${v.versionMajor}.${v.versionMinor}`, v]));
    expect(byVersion['v1.0']).toMatchObject({ createdBy: null, authorName: null });
    expect(byVersion['v1.1']).toMatchObject({ createdBy: owner.id, authorName: 'Olga Owner' });
    const detail = await p.http.get(`/api/bots/${id}/prompt-config-versions/${first.body.version.id}`, as(owner));
    expect(detail.body.version.createdBy).toBeNull();
  });
});
