/**
 * Operator takeover pauses the agent (issue 15), end to end through the gateway: while an operator has a
 * conversation (`conversation.takeover`), visitor messages on the public lane (JSON and stream), authenticated
 * chat and a WhatsApp channel are saved for the operator with no model call, no billing event and no channel
 * reply; `conversation.released` hands the conversation back and the agent answers again. Another
 * organization's operator gets 404 and changes nothing.
 */
import { randomUUID } from 'node:crypto';

import { FakeHttpServer } from '../fakes/fake-http-server';
import { whatsappNotification, whatsappSignature, whatsappText } from '../fakes/whatsapp-notification';
import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { registerUser, type TestUser } from '../support/users';
import {
  base,
  distributedAgent,
  knowledgeBaseWithDocument,
  openStream,
  type PublishedAgent,
  readUntil,
  sseData,
  startConversation,
  waitFor,
} from './public-support';

const APP_SECRET = 'app-secret-takeover-0123';

let p: TestPlatform;
let graph: FakeHttpServer;
let owner: TestUser;
let outsider: TestUser;
let agent: PublishedAgent;

beforeAll(async () => {
  graph = new FakeHttpServer((req) =>
    req.method === 'POST' && /\/\d+\/messages$/.test(req.path) ? { json: { messages: [{ id: `wamid.${randomUUID()}` }] } } : undefined,
  );
  const graphUrl = await graph.start();
  p = await startTestPlatform({ WHATSAPP_GRAPH_API_URL: `${graphUrl}/v20.0`, LOG_LEVEL: 'warn' });
  owner = await registerUser(p.http, { label: 'takeover-owner' });
  outsider = await registerUser(p.http, { label: 'takeover-outsider' });
  agent = await distributedAgent(p, owner, await knowledgeBaseWithDocument(p, owner), { streamingEnabled: true });
}, BOOT_TIMEOUT_MS);
afterAll(async () => {
  await p?.close();
  await graph?.close();
}, BOOT_TIMEOUT_MS);

const operatorEvent = (conversationId: string, type: string, user = owner) =>
  p.http.post(`/api/bots/${agent.id}/conversations/${conversationId}/operator-events`, { type }, { token: user.accessToken });
/** The organization's chat billing events of one conversation. */
const chatBillings = async (conversationId: string) => {
  const wallet = await p.http.get('/api/billing/wallet', { token: owner.accessToken });
  return (wallet.body.events as { kind: string; reference: { conversationId?: string } }[]).filter(
    (e) => e.kind === 'chat' && e.reference.conversationId === conversationId,
  ).length;
};
const inboxItem = async (conversationId: string) => {
  const r = await p.http.get(`/api/bots/${agent.id}/conversations?limit=100`, { token: owner.accessToken });
  return (r.body.conversations as { id: string; takeover: unknown }[]).find((c) => c.id === conversationId);
};
const inboxMessages = async (conversationId: string) =>
  (await p.http.get(`/api/bots/${agent.id}/conversations/${conversationId}/messages`, { token: owner.accessToken })).body.messages as {
    role: string;
    content: string;
    heldForOperator?: boolean;
  }[];

describe('operator takeover on the public lane', () => {
  it('holds visitor messages for the operator (no answer, no billing) until released, then the agent answers again', async () => {
    const visitor = randomUUID();
    const conversationId = await startConversation(p, agent.slug, visitor);
    const chat = (message: string) => p.http.post(`${base(agent.slug)}/chat`, { message, conversationId, anonymousId: visitor });

    const before = await chat('How fast are refunds paid?');
    expect(before.status).toBe(200);
    expect(before.body.response).toMatch(/fourteen days/i);
    expect(before.body.operatorTakeover).toBeUndefined();
    expect(await chatBillings(conversationId)).toBe(1);
    expect((await inboxItem(conversationId))?.takeover).toBeNull();

    expect((await operatorEvent(conversationId, 'conversation.takeover')).status).toBe(202);
    expect((await inboxItem(conversationId))?.takeover).toEqual({ operator: { displayName: 'takeover-owner' }, since: expect.any(String) });
    const opened = await p.http.get(`/api/bots/${agent.id}/conversations/${conversationId}/messages`, { token: owner.accessToken });
    expect(opened.body.takeover).toEqual({ operator: { displayName: 'takeover-owner' }, since: expect.any(String) });

    const held = await chat('Can a human check my order 4711?');
    expect(held.status).toBe(200);
    expect(held.body).toEqual({
      response: '',
      conversationId,
      usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0, cost: 0 },
      operatorTakeover: true,
    });

    // Streamed: only the done frame, flagged, no tokens.
    const { res } = await openStream(p, 'POST', `${base(agent.slug)}/chat`, {
      message: 'Still there?',
      conversationId,
      anonymousId: visitor,
      stream: true,
    });
    expect(res.headers['content-type']).toBe('text/event-stream');
    const frames = sseData(await readUntil(res, (t) => t.includes('"done"')));
    expect(frames).toEqual([expect.objectContaining({ done: true, conversationId, operatorTakeover: true })]);

    expect(await chatBillings(conversationId)).toBe(1);
    const waiting = await inboxMessages(conversationId);
    expect(waiting.slice(-2)).toEqual([
      expect.objectContaining({ role: 'user', content: 'Can a human check my order 4711?', heldForOperator: true }),
      expect.objectContaining({ role: 'user', content: 'Still there?', heldForOperator: true }),
    ]);
    // The visitor sees their own messages in their history, and no agent answer to them.
    const history = await p.http.get(`${base(agent.slug)}/conversations/${conversationId}/messages?anonymousId=${visitor}`);
    expect(history.body.messages.at(-1)).toMatchObject({ role: 'user', content: 'Still there?' });

    expect((await operatorEvent(conversationId, 'conversation.released')).status).toBe(202);
    expect((await inboxItem(conversationId))?.takeover).toBeNull();
    const after = await chat('And shipping costs?');
    expect(after.body.operatorTakeover).toBeUndefined();
    expect(after.body.response).toMatch(/shipping/i);
    expect(await chatBillings(conversationId)).toBe(2);
    expect((await inboxMessages(conversationId)).at(-1)).toMatchObject({ role: 'assistant' });
  });

  it("answers another organization's operator 404 and leaves the agent answering", async () => {
    const visitor = randomUUID();
    const conversationId = await startConversation(p, agent.slug, visitor);
    expect((await operatorEvent(conversationId, 'conversation.takeover', outsider)).status).toBe(404);
    const otherAgent = await p.http.post(
      `/api/bots/${randomUUID()}/conversations/${conversationId}/operator-events`,
      { type: 'conversation.takeover' },
      { token: outsider.accessToken },
    );
    expect(otherAgent.status).toBe(404);
    expect((await inboxItem(conversationId))?.takeover).toBeNull();
    const r = await p.http.post(`${base(agent.slug)}/chat`, { message: 'refunds?', conversationId, anonymousId: visitor });
    expect(r.body.response).toMatch(/fourteen days/i);
    expect(r.body.operatorTakeover).toBeUndefined();
  });

  it('holds authenticated chat in a taken-over conversation too', async () => {
    const first = await p.http.post(`/api/bots/${agent.id}/chat`, { message: 'refunds?' }, { token: owner.accessToken });
    const conversationId = first.body.conversationId as string;
    expect((await operatorEvent(conversationId, 'conversation.takeover')).status).toBe(202);
    const held = await p.http.post(`/api/bots/${agent.id}/chat`, { message: 'hello?', conversationId }, { token: owner.accessToken });
    expect(held.status).toBe(200);
    expect(held.body).toMatchObject({ response: '', conversationId, sources: [], operatorTakeover: true });
    expect(await chatBillings(conversationId)).toBe(1);
  });
});

describe('operator takeover on a WhatsApp channel', () => {
  it('stores inbound messages without an auto-reply while taken over, and replies again once released', async () => {
    const created = await p.http.post(
      `/api/bots/${agent.id}/channels`,
      {
        type: 'whatsapp_business',
        label: 'Takeover line',
        config: { phoneNumberId: '1234567890' },
        secrets: { appSecret: APP_SECRET, accessToken: 'EAAG-takeover-token', verifyToken: 'verify-takeover-1' },
      },
      { token: owner.accessToken },
    );
    expect(created.status).toBe(201);
    const inbound = `/api/public/channels/${created.body.channel.id}/inbound`;
    const send = async (id: string, body: string) => {
      const from = '4915199999999';
      const raw = whatsappNotification({ sender: { waId: from, name: 'Ada' }, messages: [whatsappText(from, id, body)] });
      const signature = whatsappSignature(raw, APP_SECRET);
      const r = await p.http.post(inbound, raw, { headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature } });
      expect(r.status).toBe(200);
    };
    const replies = () => graph.requests.filter((r) => r.method === 'POST').length;

    await send('wamid.t1', 'How fast are refunds paid?');
    await waitFor(async () => replies() === 1, 'the agent reply');
    const conversation = await waitFor(async () => {
      const r = await p.http.get(`/api/bots/${agent.id}/conversations?platform=whatsapp_business`, { token: owner.accessToken });
      return r.body.conversations[0] as { id: string } | undefined;
    }, 'the channel conversation');
    expect((await operatorEvent(conversation.id, 'conversation.takeover')).status).toBe(202);

    await send('wamid.t2', 'I want to talk to a person');
    const stored = await waitFor(async () => {
      const m = await inboxMessages(conversation.id);
      return m.at(-1)?.content === 'I want to talk to a person' ? m.at(-1) : null;
    }, 'the held message to be stored');
    expect(stored).toMatchObject({ role: 'user', heldForOperator: true });
    expect(await chatBillings(conversation.id)).toBe(1);

    expect((await operatorEvent(conversation.id, 'conversation.released')).status).toBe(202);
    await send('wamid.t3', 'And shipping?');
    await waitFor(async () => replies() === 2, 'the agent reply after release');
    // The reply counted here is the one to the released message: nothing went out for the held one.
    expect((await inboxMessages(conversation.id)).map((m) => m.role).slice(-3)).toEqual(['user', 'user', 'assistant']);
    expect(await chatBillings(conversation.id)).toBe(2);
  });
});
