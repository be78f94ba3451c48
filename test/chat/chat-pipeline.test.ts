import { prepareAgentChat } from '../../core/chat/agent-chat';
import { chat, type ChatCaller, prepareChat, runChat } from '../../core/chat/chat-pipeline';
import { BUILT_IN_SYSTEM_PROMPT } from '../../core/prompts/resolve-prompt';
import { DomainError } from '../../core/shared/errors';
import { actor, DOC1, FakeDb, KB1, KB2, makeAgent, makeDeps, ORG, PAID_MODEL, ScriptedModel, USER } from './fakes';

const caller = (over: Partial<ChatCaller> = {}): ChatCaller => ({
  organizationId: ORG,
  userId: USER,
  seesAll: false,
  platform: 'web',
  ...over,
});
const code = async (p: Promise<unknown>) =>
  p.then(
    () => 'resolved',
    (e: DomainError) => `${e.code}: ${e.message}`,
  );

function setup(agentOver = {}) {
  const db = new FakeDb();
  const agent = makeAgent(agentOver);
  db.agents.set(agent.id, agent);
  db.links.set(agent.id, [KB1, KB2]);
  db.docMap.set(KB1, [{ documentId: DOC1, title: 'refund-policy.txt', summary: 'How refunds work', topics: ['refunds'], chunkCount: 3 }]);
  return { db, agent, ...makeDeps(db) };
}

describe('chat pipeline: 1 validation', () => {
  it('enforces message, system prompt and attachment limits, and voice/streaming rules of the agent', async () => {
    const { deps, agent, model } = setup();
    const run = (input: object, a = agent) =>
      code(prepareChat(deps, { agent: a, caller: caller(), input: { message: 'hi', ...input } as never, promptSource: 'live' }));
    expect(await run({ message: '' })).toMatch(/^VALIDATION: message is required/);
    expect(await run({ message: '   ' })).toMatch(/^VALIDATION/);
    expect(await run({ message: 'x'.repeat(10_001) })).toMatch(/^VALIDATION: message must be at most 10000/);
    expect(await run({ message: 'x'.repeat(10_000) })).toBe('resolved');
    expect(await run({ systemPrompt: 'y'.repeat(10_001) })).toMatch(/systemPrompt must be at most 10000/);
    const six = Array.from({ length: 6 }, (_, i) => ({ id: `a${i}`, accessToken: 't' }));
    expect(await run({ attachments: six }, { ...agent, fileUploadsEnabled: true })).toMatch(/At most 5 attachments/);
    expect(await run({ attachments: [{ id: 'a', accessToken: 't' }] })).toMatch(/file uploads are disabled/);
    expect(await run({ includeVoice: true })).toMatch(/^VALIDATION: includeVoice needs voice to be enabled/);
    expect(await run({ includeVoice: true }, { ...agent, voiceEnabled: true })).toMatch(/no speech provider is configured/);
    expect(await run({ variables: { 'bad name': 1 } })).toMatch(/not a valid variable name/);
    expect(model.requests).toHaveLength(0);

    const streaming = await prepareChat(deps, { agent, caller: caller(), input: { message: 'hi', stream: true }, promptSource: 'live' });
    expect(streaming.stream).toBe(true);
    const off = await prepareChat(deps, {
      agent: { ...agent, streamingEnabled: false },
      caller: caller(),
      input: { message: 'hi', stream: true },
      promptSource: 'live',
    });
    expect(off.stream).toBe(false);
  });

  it('refuses a model no configured provider serves before anything is called', async () => {
    const { deps, agent } = setup({ model: 'groq/llama' });
    deps.chatModel = new ScriptedModel('x', { prefix: 'local/' });
    expect(await code(prepareChat(deps, { agent, caller: caller(), input: { message: 'hi' }, promptSource: 'live' }))).toMatch(
      /^VALIDATION: The model groq\/llama is not available/,
    );
  });
});

describe('chat pipeline: 2-9 context', () => {
  it('extracts attachment text into the retrieval query and the system message; unknown attachments are 400', async () => {
    const { deps, agent, queries, model } = setup({ fileUploadsEnabled: true });
    deps.attachments = {
      resolve: async (ref) =>
        ref.accessToken === 'good'
          ? { id: ref.id, filename: 'invoice.txt', mimeType: 'text/plain', text: 'Invoice 42 total 99 EUR' }
          : null,
    };
    await chat(deps, {
      agent,
      caller: caller(),
      input: { message: 'what does it say?', attachments: [{ id: 'att-1', accessToken: 'good' }] },
      promptSource: 'live',
    });
    expect(queries[0].query).toContain('Invoice 42 total 99 EUR');
    expect(model.requests[0].messages[0].content).toContain('Attached file invoice.txt (text/plain):\nInvoice 42 total 99 EUR');
    const bad = await code(
      prepareChat(deps, {
        agent,
        caller: caller(),
        input: { message: 'x', attachments: [{ id: 'att-2', accessToken: 'wrong' }] },
        promptSource: 'live',
      }),
    );
    expect(bad).toBe('VALIDATION: Attachment att-2 was not found or its access token does not match');
  });

  it('retrieves from every linked knowledge base with the last 5 messages, shows sources with document titles, the document map and graph entities', async () => {
    const { deps, agent, queries, model, db } = setup();
    deps.graph = {
      discoverChunks: async () => [],
      searchEntities: async () => [
        {
          name: 'Refund desk',
          type: 'team',
          description: 'Handles refunds',
          knowledgeBaseId: KB1,
          relations: ['part of: Support'],
          score: 0.9,
        },
      ],
    };
    const first = await chat(deps, { agent, caller: caller(), input: { message: 'm1' }, promptSource: 'live' });
    for (const m of ['m2', 'm3'])
      await chat(deps, { agent, caller: caller(), input: { message: m, conversationId: first.conversationId }, promptSource: 'live' });
    expect(queries[0]).toEqual({ organizationId: ORG, knowledgeBaseIds: [KB1, KB2], query: 'm1' });
    // history m1, a1, m2, a2 + m3: the last five messages
    expect(queries[2].query.split('\n')).toEqual(['m1', model.reply, 'm2', model.reply, 'm3']);
    expect(first.sources).toEqual([
      {
        content: 'Refunds are paid within fourteen days of the request.',
        score: 0.8,
        documentTitle: 'refund-policy.txt',
        knowledgeBaseId: KB1,
      },
    ]);
    const system = model.requests[0].messages[0].content;
    expect(system).toContain('Knowledge base context');
    expect(system).toContain('[1] refund-policy.txt\nRefunds are paid within fourteen days');
    expect(system).toContain('Documents in the knowledge bases:\n- refund-policy.txt: How refunds work (topics: refunds)');
    expect(system).toContain('Known entities:\n- Refund desk (team): Handles refunds; part of: Support');
    expect(model.requests[0].context).toEqual([{ content: first.sources[0].content, documentTitle: 'refund-policy.txt' }]);
    // the model gets the stored history
    expect(model.requests[2].messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user']);
    expect(db.messages).toHaveLength(6);
  });

  it('answers without context when no knowledge base is linked (no retrieval call)', async () => {
    const { deps, agent, queries, db, model } = setup();
    db.links.set(agent.id, []);
    const r = await chat(deps, { agent, caller: caller(), input: { message: 'hi' }, promptSource: 'live' });
    expect(queries).toHaveLength(0);
    expect(r.sources).toEqual([]);
    expect(model.requests[0].messages[0].content).not.toContain('Knowledge base context');
  });

  it('merges per-message variables into the conversation and renders them (sensitive ones too) in the system prompt', async () => {
    const { deps, agent, db, model } = setup({ systemPrompt: 'Help {{user.name}} ({{user.tier}}) of {{org.name}} with {{agent.name}}.' });
    const r1 = await chat(deps, { agent, caller: caller(), input: { message: 'hi', variables: { name: 'Ada' } }, promptSource: 'live' });
    db.conversations.get(r1.conversationId)!.sensitiveVariables = { tier: 'gold' };
    await chat(deps, {
      agent,
      caller: caller(),
      input: { message: 'again', conversationId: r1.conversationId, variables: { plan: 'pro' } },
      promptSource: 'live',
    });
    expect(db.conversations.get(r1.conversationId)!.variables).toEqual({ name: 'Ada', plan: 'pro' });
    expect(model.requests[0].messages[0].content).toMatch(/^Help Ada \(\) of Acme with Helper\./);
    expect(model.requests[1].messages[0].content).toMatch(/^Help Ada \(gold\) of Acme with Helper\./);
  });

  it('resolves the system prompt: live section, else the agent systemPrompt, else the system default, else the built-in one; preview uses the draft; an override wins', async () => {
    const { deps, agent, db, model } = setup({ systemPrompt: 'Agent prompt.' });
    const run = async (source: 'live' | 'draft', input = {}) => {
      await chat(deps, { agent, caller: caller(), input: { message: 'hi', ...input }, promptSource: source });
      return model.requests[model.requests.length - 1].messages[0].content.split('\n\n')[0];
    };
    expect(await run('live')).toBe('Agent prompt.');
    db.live.set(agent.id, [
      { promptType: 'system', instanceRef: null, mode: 'fixed', content: 'Live prompt for {{user.name}}.', prompt: null },
    ]);
    db.draft.set(agent.id, [{ promptType: 'system', instanceRef: null, mode: 'fixed', content: 'Draft prompt.', prompt: null }]);
    expect(await run('live', { variables: { name: 'Bo' } })).toBe('Live prompt for Bo.');
    expect(await run('draft')).toBe('Draft prompt.');
    expect(await run('live', { systemPrompt: 'Override for {{user.name}}.', variables: { name: 'Cy' } })).toBe('Override for Cy.');
    db.live.clear();
    agent.systemPrompt = null;
    deps.settings.systemDefaultPrompt = 'System default.';
    expect(await run('live')).toBe('System default.');
    deps.settings.systemDefaultPrompt = null;
    expect(await run('live')).toBe(BUILT_IN_SYSTEM_PROMPT);
  });
});

describe('chat pipeline: 10-12 model, messages, billing', () => {
  it('saves the user and assistant messages with sources, tokens, cost, model and response time, and bills a paid model with the margin', async () => {
    const { deps, agent, db, model } = setup({ model: PAID_MODEL.id });
    const r = await chat(deps, { agent, caller: caller(), input: { message: 'How long do refunds take?' }, promptSource: 'live' });
    const usage = model.requests[0] && { prompt: r.usage.promptTokens, completion: r.usage.completionTokens };
    const providerCost = usage.prompt * 0.001 + usage.completion * 0.002;
    expect(r.usage).toEqual({
      promptTokens: usage.prompt,
      completionTokens: 4,
      totalTokens: usage.prompt + 4,
      cost: Math.round(providerCost * 1.5 * 1e8) / 1e8,
    });
    expect(db.events).toEqual([
      expect.objectContaining({
        kind: 'chat',
        model: PAID_MODEL.id,
        promptTokens: usage.prompt,
        completionTokens: 4,
        costUsd: r.usage.cost,
      }),
    ]);
    expect(db.events[0].reference).toMatchObject({ agentId: agent.id, conversationId: r.conversationId, messageId: r.messageId });
    expect(db.wallets.get(ORG)).toBeCloseTo(5 - r.usage.cost, 8);
    const [user, assistant] = db.messages;
    expect(user).toMatchObject({ role: 'user', content: 'How long do refunds take?', conversationId: r.conversationId, costUsd: 0 });
    expect(assistant).toMatchObject({
      id: r.messageId,
      role: 'assistant',
      content: model.reply,
      sources: r.sources,
      promptTokens: usage.prompt,
      completionTokens: 4,
      costUsd: r.usage.cost,
      model: PAID_MODEL.id,
    });
    expect(assistant.responseMs).toBeGreaterThanOrEqual(0);
    expect(assistant.createdAt > user.createdAt).toBe(true);
    expect(db.conversations.get(r.conversationId)).toMatchObject({
      agentId: agent.id,
      userId: USER,
      platform: 'web',
      title: 'How long do refunds take?',
    });
  });

  it('records a 0-cost billing event for a free model and leaves the wallet alone', async () => {
    const { deps, agent, db } = setup();
    const r = await chat(deps, { agent, caller: caller(), input: { message: 'hi' }, promptSource: 'live' });
    expect(r.usage.cost).toBe(0);
    expect(db.events).toEqual([expect.objectContaining({ kind: 'chat', model: 'local/extractive', costUsd: 0, providerCostUsd: 0 })]);
    expect(db.wallets.get(ORG)).toBe(5);
  });

  it('refuses a paid model without credits before the model is called (nothing saved)', async () => {
    const { deps, agent, db, model } = setup({ model: PAID_MODEL.id });
    db.wallets.set(ORG, 0);
    expect(await code(chat(deps, { agent, caller: caller(), input: { message: 'hi' }, promptSource: 'live' }))).toMatch(
      /^INSUFFICIENT_CREDITS/,
    );
    expect(model.requests).toHaveLength(0);
    expect(db.messages).toHaveLength(0);
    expect(db.conversations.size).toBe(0);
  });

  it('refuses a model missing from the catalogue (it could not be priced)', async () => {
    const { deps, agent } = setup({ model: 'openai/unlisted' });
    expect(await code(chat(deps, { agent, caller: caller(), input: { message: 'hi' }, promptSource: 'live' }))).toMatch(
      /not in the model catalogue/,
    );
  });

  it('streams tokens as the model emits them; a disconnect aborts the model and bills exactly what was produced', async () => {
    const { deps, agent, db } = setup({ model: PAID_MODEL.id });
    const slow = new ScriptedModel('one two three four five six seven eight', { delayMs: 5 });
    deps.chatModel = slow;
    const controller = new AbortController();
    const seen: string[] = [];
    const prepared = await prepareChat(deps, { agent, caller: caller(), input: { message: 'count', stream: true }, promptSource: 'live' });
    const r = await runChat(deps, prepared, {
      signal: controller.signal,
      onToken: (t) => {
        seen.push(t);
        if (seen.length === 3) controller.abort();
      },
    });
    expect(seen).toEqual(['one ', 'two ', 'three ']);
    expect(slow.emitted).toBe(3);
    expect(r.finishReason).toBe('aborted');
    expect(db.events[0].completionTokens).toBe(3);
    expect(db.messages[1]).toMatchObject({
      content: 'one two three ',
      completionTokens: 3,
      metadata: expect.objectContaining({ finishReason: 'aborted' }),
    });
  });

  it('turns provider credit or token limits into provider_limit_reached with the user-facing message; other codes pass through', async () => {
    const { deps, agent, model } = setup();
    model.error = new DomainError('PROVIDER_LIMIT_REACHED', 'quota exceeded at provider', { reason: 'credit' });
    const limit = await chat(deps, { agent, caller: caller(), input: { message: 'hi' }, promptSource: 'live' }).catch((e) => e);
    expect(limit).toMatchObject({
      code: 'PROVIDER_LIMIT_REACHED',
      message: 'The assistant is temporarily unavailable. Please try again later.',
      details: { reason: 'credit' },
    });
    model.error = new DomainError('RATE_LIMITED', 'slow down');
    expect(await code(chat(deps, { agent, caller: caller(), input: { message: 'hi' }, promptSource: 'live' }))).toBe(
      'RATE_LIMITED: slow down',
    );
  });
});

describe('chat pipeline: conversations and access', () => {
  it("a conversation of another agent, another user or another organization is 404; owners and admins may continue any of their organization's", async () => {
    const { deps, agent, db } = setup();
    const r = await chat(deps, { agent, caller: caller(), input: { message: 'hi' }, promptSource: 'live' });
    const other = makeAgent();
    db.agents.set(other.id, other);
    const cont = (a: typeof agent, c: ChatCaller) =>
      code(chat(deps, { agent: a, caller: c, input: { message: 'again', conversationId: r.conversationId }, promptSource: 'live' }));
    expect(await cont(other, caller())).toBe('NOT_FOUND: Conversation not found');
    expect(await cont(agent, caller({ userId: '00000000-0000-4000-8000-0000000000a2' }))).toBe('NOT_FOUND: Conversation not found');
    expect(await cont(agent, caller({ userId: '00000000-0000-4000-8000-0000000000a2', seesAll: true }))).toBe('resolved');
    expect(await cont(agent, caller({ organizationId: '00000000-0000-4000-8000-000000000002', seesAll: true }))).toBe(
      'NOT_FOUND: Conversation not found',
    );
    expect(
      await code(
        prepareAgentChat(deps, actor({ organizationId: '00000000-0000-4000-8000-000000000002' }), agent.id, { message: 'hi' }, 'chat'),
      ),
    ).toBe('NOT_FOUND: Agent not found');
    const preview = await prepareAgentChat(deps, actor(), agent.id, { message: 'hi' }, 'preview');
    expect(preview.turn.promptSource).toBe('draft');
    expect(preview.conversation.platform).toBe('preview');
  });
});
