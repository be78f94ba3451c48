import { cohereChatProvider } from '../../adapters/cohere/cohere.adapters';
import { localChatProvider } from '../../adapters/local-ai/local-ai.adapters';
import { openAiChatProvider } from '../../adapters/openai/openai.adapters';
import { ChatModelRouter } from '../../app/chat-model-router';
import { chat } from '../../core/chat/chat-pipeline';
import {
  getConversation,
  getConversationVariables,
  issueContextToken,
  listConversations,
  listMessages,
  setConversationVariables,
} from '../../core/chat/conversations';
import { createConversation, startConversation } from '../../core/chat/create-conversation';
import { compatAgent, splitMessages } from '../../core/chat/openai-compat';
import { signContextToken, verifyContextToken } from '../../core/conversations/context-token';
import type { DomainError } from '../../core/shared/errors';
import { actor, FakeDb, makeAgent, makeDeps, ORG, OTHER_ORG, PAID_MODEL, ScriptedModel, USER } from './fakes';

const code = async (p: Promise<unknown>) =>
  p.then(
    () => 'resolved',
    (e: DomainError) => `${e.code}: ${e.message}`,
  );
const OTHER_USER = '00000000-0000-4000-8000-0000000000a2';

function setup(agentOver = {}) {
  const db = new FakeDb();
  const agent = makeAgent(agentOver);
  db.agents.set(agent.id, agent);
  return { db, agent, ...makeDeps(db) };
}

describe('context tokens', () => {
  const payload = { agentId: 'agent-1', organizationId: ORG, variables: { account: 'ACC-9' }, iat: 100, exp: 200 };
  const expect_ = { agentId: 'agent-1', organizationId: ORG, nowSeconds: 150 };

  it('round-trips, hides the variables from the holder, and refuses tampering, another agent, expiry and another secret (400)', () => {
    const token = signContextToken('s3cret', payload);
    expect(verifyContextToken('s3cret', token, expect_)).toEqual(payload);
    expect(Buffer.from(token.split('.')[1], 'base64url').toString('latin1')).not.toContain('ACC-9');
    const [p, body, sig] = token.split('.');
    const flipped = `${p}.${body.slice(0, 10)}${body[10] === 'A' ? 'B' : 'A'}${body.slice(11)}.${sig}`;
    const fail = (fn: () => unknown) => {
      try {
        fn();
        return 'ok';
      } catch (e) {
        return `${(e as DomainError).code}: ${(e as DomainError).message}`;
      }
    };
    expect(fail(() => verifyContextToken('s3cret', flipped, expect_))).toMatch(/^VALIDATION: context_token is invalid/);
    expect(fail(() => verifyContextToken('other', token, expect_))).toMatch(/^VALIDATION: context_token is invalid/);
    expect(fail(() => verifyContextToken('s3cret', 'garbage', expect_))).toMatch(/^VALIDATION: context_token is invalid/);
    expect(fail(() => verifyContextToken('s3cret', token, { ...expect_, agentId: 'agent-2' }))).toMatch(/another agent/);
    expect(fail(() => verifyContextToken('s3cret', token, { ...expect_, nowSeconds: 200 }))).toMatch(/expired/);
  });

  it('issued tokens give a new conversation sensitive variables: usable in prompts, never returned', async () => {
    const { deps, agent, db, model } = setup({ systemPrompt: 'Customer account {{user.account}}, name {{user.name}}.' });
    const { contextToken } = await issueContextToken(deps, actor(), agent.id, { variables: { account: 'ACC-9' } });
    const created = await createConversation(deps, actor(), agent.id, { variables: { name: 'Ada' }, context_token: contextToken });
    expect(db.conversations.get(created.conversationId)).toMatchObject({
      variables: { name: 'Ada' },
      sensitiveVariables: { account: 'ACC-9' },
    });
    await chat(deps, {
      agent,
      caller: { organizationId: ORG, userId: USER, seesAll: false, platform: 'web' },
      input: { message: 'hi', conversationId: created.conversationId },
      promptSource: 'live',
    });
    expect(model.requests[0].messages[0].content).toMatch(/^Customer account ACC-9, name Ada\./);
    const view = await getConversation(deps, actor(), created.conversationId);
    expect(JSON.stringify(view)).not.toContain('ACC-9');
    expect(view.conversation).toMatchObject({ variables: { name: 'Ada' }, sensitiveVariableNames: ['account'], messageCount: 2 });
    expect(JSON.stringify(await getConversationVariables(deps, actor(), agent.id, created.conversationId))).not.toContain('ACC-9');
    const other = makeAgent();
    db.agents.set(other.id, other);
    expect(await code(createConversation(deps, actor(), other.id, { context_token: contextToken }))).toMatch(/issued for another agent/);
    expect(await code(issueContextToken(deps, actor(), agent.id, { variables: {}, expiresInSeconds: 999_999_999 }))).toMatch(
      /^VALIDATION: expiresInSeconds/,
    );
  });
});

describe('conversation variables', () => {
  it('keeps variables from a signed context token read-only (issue 8, item 3)', async () => {
    const { deps, agent, db, model } = setup({ systemPrompt: 'Tier {{user.tier}}.' });
    const { contextToken } = await issueContextToken(deps, actor(), agent.id, { variables: { tier: 'basic' } });
    const { conversationId } = await createConversation(deps, actor(), agent.id, { context_token: contextToken });
    for (const variables of [{ tier: 'enterprise' }, { tier: null }]) {
      for (const sensitive of [['tier'], []]) {
        expect(await code(setConversationVariables(deps, actor(), agent.id, conversationId, { variables, sensitive }))).toBe(
          'CONFLICT: These variables come from a signed context token and are read-only: tier',
        );
      }
    }
    // other names are still the conversation's to set, and the signed value is untouched
    await setConversationVariables(deps, actor(), agent.id, conversationId, { variables: { lang: 'en' } });
    expect(db.conversations.get(conversationId)).toMatchObject({ sensitiveVariables: { tier: 'basic' }, variables: { lang: 'en' } });
    await chat(deps, {
      agent,
      caller: { organizationId: ORG, userId: USER, seesAll: false, platform: 'web' },
      input: { message: 'hi', conversationId, variables: { tier: 'enterprise' } },
      promptSource: 'live',
    });
    expect(model.requests[0].messages[0].content).toMatch(/^Tier basic\./);
  });

  it('merges plain and sensitive variables, moves a name between stores, removes with null, and hides sensitive values', async () => {
    const { deps, agent } = setup();
    const { conversationId } = await createConversation(deps, actor(), agent.id, { variables: { a: 1 } });
    expect(
      await setConversationVariables(deps, actor(), agent.id, conversationId, { variables: { b: 'two', pin: '1234' }, sensitive: ['pin'] }),
    ).toEqual({ variables: { a: 1, b: 'two' }, sensitive: ['pin'] });
    expect(
      await setConversationVariables(deps, actor(), agent.id, conversationId, { variables: { a: null, b: 'secret-b' }, sensitive: ['b'] }),
    ).toEqual({ variables: {}, sensitive: ['b', 'pin'] });
    expect(await getConversationVariables(deps, actor(), agent.id, conversationId)).toEqual({ variables: {}, sensitive: ['b', 'pin'] });
    expect(
      await code(setConversationVariables(deps, actor(), agent.id, conversationId, { variables: { x: 1 }, sensitive: ['y'] })),
    ).toMatch(/sensitive names a variable that is not in variables: y/);
    const other = makeAgent();
    deps.store.repos.agents.findById = (async (org: string, id: string) =>
      id === other.id ? other : id === agent.id ? agent : null) as never;
    expect(await code(getConversationVariables(deps, actor(), other.id, conversationId))).toBe('NOT_FOUND: Conversation not found');
    expect(await code(getConversationVariables(deps, actor({ userId: OTHER_USER }), agent.id, conversationId))).toBe(
      'NOT_FOUND: Conversation not found',
    );
  });
});

describe('welcome messages', () => {
  it('none without a welcome section; fixed renders the content with the variables; generated calls the model and bills welcome_message', async () => {
    const { deps, agent, db, model } = setup({ model: PAID_MODEL.id });
    expect((await createConversation(deps, actor(), agent.id, {})).welcomeMessage).toBeNull();
    db.live.set(agent.id, [
      { promptType: 'welcome', instanceRef: null, mode: 'fixed', content: 'Hi {{user.name}}, I am {{agent.name}}.', prompt: null },
    ]);
    const fixed = await createConversation(deps, actor(), agent.id, { variables: { name: 'Ada' } });
    expect(fixed.welcomeMessage).toBe('Hi Ada, I am Helper.');
    expect(db.messages.filter((m) => m.conversationId === fixed.conversationId)).toEqual([
      expect.objectContaining({ role: 'assistant', content: 'Hi Ada, I am Helper.', costUsd: 0 }),
    ]);
    expect(model.requests).toHaveLength(0);
    expect(db.events).toHaveLength(0);

    db.live.set(agent.id, [
      { promptType: 'welcome', instanceRef: null, mode: 'generated', content: null, prompt: 'Greet {{user.name}} warmly.' },
    ]);
    model.reply = 'Welcome aboard, Ada!';
    const generated = await createConversation(deps, actor(), agent.id, { variables: { name: 'Ada' } });
    expect(generated.welcomeMessage).toBe('Welcome aboard, Ada!');
    expect(model.requests[0].messages[1]).toEqual({ role: 'user', content: 'Greet Ada warmly.' });
    expect(db.events).toEqual([expect.objectContaining({ kind: 'welcome_message', model: PAID_MODEL.id })]);
    expect(db.events[0].costUsd).toBeGreaterThan(0);

    db.wallets.set(ORG, 0);
    expect(await code(createConversation(deps, actor(), agent.id, {}))).toMatch(/^INSUFFICIENT_CREDITS/);
    expect(model.requests).toHaveLength(1);
  });

  it('the public surface can start anonymous conversations through the same use case', async () => {
    const { deps, agent, db } = setup();
    const anon = '6f1c2b7e-0000-4000-8000-000000000123';
    const r = await startConversation(
      deps,
      agent,
      { organizationId: ORG, userId: null, anonymousId: anon, seesAll: false, platform: 'public' },
      {},
    );
    expect(db.conversations.get(r.conversationId)).toMatchObject({ anonymousId: anon, userId: null, platform: 'public' });
  });
});

describe('conversation listing and messages', () => {
  it("lists the caller's conversations with pagination; another member's need owner or admin; messages carry usage", async () => {
    const { deps, agent } = setup();
    const caller = { organizationId: ORG, userId: USER, seesAll: false, platform: 'web' };
    const ids = [];
    for (let i = 0; i < 3; i++)
      ids.push((await chat(deps, { agent, caller, input: { message: `q${i}` }, promptSource: 'live' })).conversationId);
    await chat(deps, { agent, caller: { ...caller, userId: OTHER_USER }, input: { message: 'theirs' }, promptSource: 'live' });
    const page = await listConversations(deps, actor(), { limit: 2, offset: 0 });
    expect(page.pagination).toEqual({ limit: 2, offset: 0, total: 3, hasMore: true });
    expect(page.conversations[0]).toMatchObject({ botId: agent.id, platform: 'web', messageCount: 2 });
    expect((await listConversations(deps, actor(), { limit: 2, offset: 2 })).pagination.hasMore).toBe(false);
    expect(await code(listConversations(deps, actor(), { userId: OTHER_USER, limit: 50, offset: 0 }))).toMatch(/^FORBIDDEN/);
    expect(
      (await listConversations(deps, actor({ orgRole: 'admin' }), { userId: OTHER_USER, limit: 50, offset: 0 })).pagination.total,
    ).toBe(1);
    expect((await listConversations(deps, actor(), { botId: agent.id, platform: 'api', limit: 50, offset: 0 })).pagination.total).toBe(0);
    const { messages } = await listMessages(deps, actor(), ids[0]);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(messages[1].usage).toEqual({ promptTokens: expect.any(Number), completionTokens: 4, totalTokens: expect.any(Number), cost: 0 });
    expect(await code(listMessages(deps, actor({ organizationId: OTHER_ORG }), ids[0]))).toBe('NOT_FOUND: Conversation not found');
  });
});

describe('OpenAI-compatible mapping and the model router', () => {
  it('splits messages: last user message, earlier history, system messages as the override', () => {
    expect(
      splitMessages([
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'answer' },
        { role: 'user', content: [{ type: 'text', text: 'second' }] },
      ]),
    ).toEqual({
      message: 'second',
      history: [
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'answer' },
      ],
      systemPrompt: 'Be brief.',
    });
    expect(() => splitMessages([{ role: 'assistant', content: 'x' }])).toThrow(/must contain a user message/);
  });

  it("finds an agent of the organization by id or slug, never another organization's", async () => {
    const { db, deps } = setup();
    const a = makeAgent({ slug: 'helper' });
    const b = makeAgent({ slug: 'theirs', organizationId: OTHER_ORG });
    db.agents.set(a.id, a);
    db.agents.set(b.id, b);
    expect((await compatAgent(deps.store.repos, ORG, 'helper')).id).toBe(a.id);
    expect((await compatAgent(deps.store.repos, ORG, a.id)).id).toBe(a.id);
    expect(await code(compatAgent(deps.store.repos, ORG, 'theirs'))).toMatch(/^NOT_FOUND/);
    expect(await code(compatAgent(deps.store.repos, ORG, b.id))).toMatch(/^NOT_FOUND/);
  });

  it('routes by prefix: local/ to the local provider, cohere/ to Cohere when configured, the rest to OpenAI-compatible; else a clear 400', async () => {
    const local = new ScriptedModel('local', { prefix: 'local/' });
    const cohere = new ScriptedModel('cohere', { prefix: 'cohere/' });
    const openai = new ScriptedModel('openai');
    const bench = new ScriptedModel('instant', { prefix: 'bench/' });
    const routes = (models: { local: ScriptedModel | null; cohere: ScriptedModel | null; openai: ScriptedModel | null }) => [
      { routing: localChatProvider, model: models.local },
      { routing: cohereChatProvider, model: models.cohere },
      { routing: openAiChatProvider, model: models.openai },
    ];
    const router = new ChatModelRouter(routes({ local, cohere, openai }), [bench]);
    const answer = async (model: string) => (await router.complete({ model, messages: [] })).text;
    expect([
      await answer('local/extractive'),
      await answer('cohere/command-r'),
      await answer('openai/gpt-4o'),
      await answer('groq/llama'),
      await answer('bench/instant'),
    ]).toEqual(['local', 'cohere', 'openai', 'openai', 'instant']);
    const bare = new ChatModelRouter(routes({ local, cohere: null, openai: null }));
    expect(bare.supports('openai/gpt-4o')).toBe(false);
    expect(() => bare.complete({ model: 'cohere/command-r', messages: [] })).toThrow(/needs a Cohere key \(COHERE_API_KEY\)/);
    expect(() => bare.complete({ model: 'openai/gpt-4o', messages: [] })).toThrow(/needs an OpenAI key/);
    expect(() => bare.complete({ model: 'groq/llama', messages: [] })).toThrow(/OpenAI-compatible endpoint/);
  });
});
