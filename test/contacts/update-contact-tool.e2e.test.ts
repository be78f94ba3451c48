/**
 * The agent tool `update_contact` (spec 2.10, issue 11) end to end: visitors of the public lane talk to an
 * agent whose model is served by a local fake OpenAI-compatible server. The fake first answers with a tool call,
 * then with text; the platform runs the call, sends its result back and answers the visitor with the text.
 * Fields land with history source `tool`; a duplicate email is refused in history; a model the catalogue
 * lists without tool support gets no tools.
 */
import { randomUUID } from 'node:crypto';

import { sseData } from '../chat/seed-knowledge';
import { FakeOpenAi } from '../fakes/fake-openai';
import { base, distributedAgent, knowledgeBaseWithDocument, openStream, readUntil, startConversation } from '../public-chat/public-support';
import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { registerUser, type TestUser } from '../support/users';

const TOOLS_MODEL = 'openai/gpt-tools-test';
const PLAIN_MODEL = 'openai/gpt-plain-test';
const fake = new FakeOpenAi();
let p: TestPlatform;
let owner: TestUser;
let kbId: string;
let agent: { id: string; slug: string };

beforeAll(async () => {
  await fake.start();
  p = await startTestPlatform({
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: fake.baseURL,
    OPENAI_MAX_RETRIES: '0',
    EMBEDDINGS_PROVIDER: 'local',
    VISION_PROVIDER: 'none',
    TRANSCRIPTION_PROVIDER: 'none',
  });
  const template = (await p.store.repos.models.findById('openai/gpt-4o-mini'))!;
  // Free, so the test needs no credits; billing still records every call's tokens.
  const free = { ...template, isFree: true, promptPricePerToken: 0, completionPricePerToken: 0 };
  await p.store.repos.models.upsert([
    { ...free, id: TOOLS_MODEL, name: 'Tools test', capabilities: { ...template.capabilities, tools: true } },
    { ...free, id: PLAIN_MODEL, name: 'Plain test', capabilities: { ...template.capabilities, tools: false } },
  ]);
  owner = await registerUser(p.http, { label: 'tool-owner' });
  kbId = await knowledgeBaseWithDocument(p, owner);
  agent = await distributedAgent(p, owner, kbId, { model: TOOLS_MODEL });
}, BOOT_TIMEOUT_MS);
afterAll(async () => {
  await p?.close();
  await fake.close();
}, BOOT_TIMEOUT_MS);
beforeEach(() => fake.reset());

const chatRequests = () => fake.requests.filter((r) => r.path === '/v1/chat/completions').map((r) => r.json);

async function say(slug: string, anonymousId: string, message: string) {
  const conversationId = await startConversation(p, slug, anonymousId);
  const r = await p.http.post(`${base(slug)}/chat`, { message, conversationId, anonymousId });
  expect(r.status).toBe(200);
  return { conversationId, body: r.body };
}

async function contactOf(conversationId: string) {
  const conversation = await p.store.repos.conversations.findById(owner.orgId, conversationId);
  expect(conversation?.contactId).toBeTruthy();
  const r = await p.http.get(`/api/contacts/${conversation!.contactId}`, { token: owner.accessToken });
  expect(r.status).toBe(200);
  return r.body;
}

describe('update_contact through the chat pipeline', () => {
  it('offers the tool, runs the call, answers with the model text, and records the fields with source tool', async () => {
    fake.toolTurns.push([
      { id: 'call_1', name: 'update_contact', arguments: { name: 'Grace Hopper', email: 'Grace@Example.com', company: 'Navy' } },
    ]);
    const { conversationId, body } = await say(agent.slug, randomUUID(), 'Hello, I have a question about refunds');
    expect(body.response).toBe(fake.reply);

    const [first, second] = chatRequests();
    expect(first.tools).toEqual([
      expect.objectContaining({ type: 'function', function: expect.objectContaining({ name: 'update_contact' }) }),
    ]);
    const toolMessages = second.messages.slice(-2);
    expect(toolMessages[0]).toMatchObject({
      role: 'assistant',
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'update_contact' } }],
    });
    expect(toolMessages[1]).toMatchObject({ role: 'tool', tool_call_id: 'call_1' });
    expect(JSON.parse(toolMessages[1].content)).toEqual({ saved: ['name', 'email', 'company'] });

    const detail = await contactOf(conversationId);
    expect(detail.contact).toMatchObject({
      displayName: 'Grace Hopper',
      displayNameSource: 'tool',
      primaryEmail: 'grace@example.com',
      attributes: { company: 'Navy' },
    });
    const toolRows = detail.fieldHistory.filter((h: { source: string }) => h.source === 'tool');
    expect(toolRows.map((h: { field_key: string }) => h.field_key).sort()).toEqual(['company', 'email', 'name']);
    expect(
      toolRows.every((h: { source_ref: unknown; rejected_reason: unknown }) => h.source_ref === null && h.rejected_reason === null),
    ).toBe(true);

    // The visitor never sees the call: the conversation holds the welcome, the question and the answer only.
    const stored = await p.store.repos.conversations.recentMessages(owner.orgId, conversationId, 10);
    expect(stored.filter((m) => m.role === 'assistant').map((m) => m.content)).toContain(fake.reply);
    expect(stored.map((m) => m.content).join(' ')).not.toContain('update_contact');
    // Billing counts both model calls: the completion tokens are the tool call's (12) plus the answer's words.
    const answer = stored.find((m) => m.role === 'assistant' && m.content === fake.reply)!;
    expect(answer.completionTokens).toBe(12 + fake.reply.split(' ').length);
  });

  it('refuses an email held by another contact: a rejected_duplicate_identity row, nothing overwritten', async () => {
    fake.toolTurns.push([{ id: 'call_2', name: 'update_contact', arguments: { email: 'grace@example.com', phone: '+44 20 7946 0958' } }]);
    const { conversationId } = await say(agent.slug, randomUUID(), 'Hi there');
    const toolMessage = chatRequests()[1].messages.at(-1);
    expect(JSON.parse(toolMessage.content)).toEqual({
      saved: ['phone'],
      refused: ['email'],
      reason: 'already belongs to another contact',
    });
    const detail = await contactOf(conversationId);
    expect(detail.contact.primaryEmail).toBeNull();
    expect(detail.contact.primaryPhone).toBe('+442079460958');
    expect(detail.fieldHistory).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          field_key: 'email',
          value: 'grace@example.com',
          source: 'tool',
          rejected_reason: 'rejected_duplicate_identity',
        }),
        expect.objectContaining({ field_key: 'phone', value: '+442079460958', source: 'tool', rejected_reason: null }),
      ]),
    );
  });

  it('answers invalid arguments with an error the model can read, and writes nothing', async () => {
    fake.toolTurns.push([{ id: 'call_3', name: 'update_contact', arguments: { name: 42, favourite: 'x' } }]);
    const { conversationId, body } = await say(agent.slug, randomUUID(), 'Hi again');
    expect(body.response).toBe(fake.reply);
    expect(JSON.parse(chatRequests()[1].messages.at(-1).content)).toEqual({ error: 'name must be a string' });
    const detail = await contactOf(conversationId);
    expect(detail.fieldHistory.filter((h: { source: string }) => h.source === 'tool')).toEqual([]);
  });

  it('runs streamed tool calls (argument deltas) and streams only the final text', async () => {
    fake.toolTurns.push([
      { id: 'call_4', name: 'update_contact', arguments: { name: 'Ada Byron', attributes: { plan: 'gold', seats: 3 } } },
    ]);
    const anonymousId = randomUUID();
    const conversationId = await startConversation(p, agent.slug, anonymousId);
    const { res } = await openStream(p, 'POST', `${base(agent.slug)}/chat`, {
      message: 'Hello',
      conversationId,
      anonymousId,
      stream: true,
    });
    expect(res.statusCode).toBe(200);
    const frames = sseData(await readUntil(res, () => false));
    const tokens = frames.filter((f) => 'token' in f).map((f) => f.token);
    expect(tokens.join('')).toBe(fake.reply);
    expect(frames.at(-1)).toMatchObject({ done: true });
    // Both model calls streamed: the call came as argument deltas, accumulated by the adapter.
    expect(chatRequests().map((r) => r.stream)).toEqual([true, true]);
    const detail = await contactOf(conversationId);
    expect(detail.contact).toMatchObject({ displayName: 'Ada Byron', attributes: { plan: 'gold', seats: '3' } });
  });

  it('stops after three rounds of calls: the next call must answer in text (tool_choice none)', async () => {
    for (const id of ['r1', 'r2', 'r3']) fake.toolTurns.push([{ id, name: 'update_contact', arguments: { attributes: { round: id } } }]);
    const { conversationId, body } = await say(agent.slug, randomUUID(), 'Hello once more');
    expect(body.response).toBe(fake.reply);
    const requests = chatRequests();
    expect(requests.map((r) => r.tool_choice ?? 'auto')).toEqual(['auto', 'auto', 'auto', 'none']);
    expect((await contactOf(conversationId)).contact.attributes).toEqual({ round: 'r3' });
  });

  it('sends no tools when the agent lists update_contact disabled', async () => {
    const off = await distributedAgent(p, owner, kbId, {
      model: TOOLS_MODEL,
      tools: [{ toolDefinitionId: 'update_contact', isEnabled: false }],
    });
    const { body } = await say(off.slug, randomUUID(), 'Hello, I am Ada, ada@example.com');
    expect(body.response).toBe(fake.reply);
    const requests = chatRequests();
    expect(requests).toHaveLength(1);
    expect(requests[0]).not.toHaveProperty('tools');
  });

  it('sends no tools to a model the catalogue lists without tool support', async () => {
    const plain = await distributedAgent(p, owner, kbId, { model: PLAIN_MODEL });
    const { body } = await say(plain.slug, randomUUID(), 'Hello');
    expect(body.response).toBe(fake.reply);
    const requests = chatRequests();
    expect(requests).toHaveLength(1);
    expect(requests[0]).not.toHaveProperty('tools');
  });
});
