/**
 * The operator-presence stream (spec 6) and the public rate limits (spec 7, 8) end to end through the gateway,
 * on a platform configured with tiny public limits.
 */
import { randomUUID } from 'node:crypto';

import { SERVICES } from '../../app/container';
import type { Services } from '../../app/services';
import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { joinOrganization, registerUser, type TestUser } from '../support/users';
import {
  base,
  collect,
  distributedAgent,
  knowledgeBaseWithDocument,
  openStream,
  type PublishedAgent,
  sseData,
  startConversation,
  uploadAttachment,
  waitFor,
} from './public-support';

let p: TestPlatform;
let owner: TestUser;
let agent: PublishedAgent;

beforeAll(async () => {
  p = await startTestPlatform({ PUBLIC_CHAT_PER_MINUTE: '3', PUBLIC_CHAT_PER_IP_PER_MINUTE: '12', PUBLIC_UPLOADS_PER_MINUTE: '1' });
  owner = await registerUser(p.http, { label: 'presence-owner' });
  agent = await distributedAgent(p, owner, await knowledgeBaseWithDocument(p, owner), { fileUploadsEnabled: true });
}, BOOT_TIMEOUT_MS);
afterAll(() => p?.close(), BOOT_TIMEOUT_MS);

const subscribers = () => (p.infra.bus as unknown as { subscribers: Set<unknown> }).subscribers.size;
const operatorEvent = (conversationId: string, body: Record<string, unknown>, user = owner) =>
  p.http.post(`/api/bots/${agent.id}/conversations/${conversationId}/operator-events`, body, { token: user.accessToken });

describe('operator presence', () => {
  it('relays operator events to the visitor as SSE frames, with a comment heartbeat, and unsubscribes on disconnect', async () => {
    p.container.get<Services>(SERVICES).publicChat.presenceHeartbeatMs = 50;
    const visitor = randomUUID();
    const conversationId = await startConversation(p, agent.slug, visitor);
    const idle = subscribers();
    const { req, res } = await openStream(p, 'GET', `${base(agent.slug)}/conversations/${conversationId}/events?anonymousId=${visitor}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream');
    const stream = collect(res);
    await waitFor(async () => stream.text.includes(': connected'), 'the stream to open');
    expect(subscribers()).toBe(idle + 1);

    expect((await operatorEvent(conversationId, { type: 'operator.joined' })).status).toBe(202);
    const typing = await operatorEvent(conversationId, { type: 'operator.typing' });
    expect(typing.body.event).toMatchObject({ type: 'operator.typing', typing: true });
    const sent = await operatorEvent(conversationId, { type: 'operator.message', message: 'Hi, a human here.' });
    expect(sent.status).toBe(202);
    await operatorEvent(conversationId, { type: 'conversation.takeover' });

    const frames = await waitFor(async () => {
      const f = sseData(stream.text);
      return f.length >= 4 ? f : null;
    }, 'four presence frames');
    expect(frames.map((f) => f.type)).toEqual(['operator.joined', 'operator.typing', 'operator.message', 'conversation.takeover']);
    expect(frames[0]).toEqual({
      type: 'operator.joined',
      conversationId,
      operator: { displayName: 'presence-owner' },
      emittedAt: expect.any(String),
    });
    expect(frames[2]).toMatchObject({ message: 'Hi, a human here.', messageId: sent.body.event.messageId });
    await waitFor(async () => stream.text.includes(': ping'), 'a heartbeat comment');

    // The operator's message stays in the visitor's history.
    const messages = await p.http.get(`${base(agent.slug)}/conversations/${conversationId}/messages?anonymousId=${visitor}`);
    expect(messages.body.messages.at(-1)).toMatchObject({
      role: 'assistant',
      content: 'Hi, a human here.',
      operator: { displayName: 'presence-owner' },
    });

    req.destroy();
    await waitFor(async () => subscribers() === idle, 'the subscription to close');
  });

  it('lets operators (edit on the agent) publish, not viewers; validates the event; another organization or agent: 404', async () => {
    const visitor = randomUUID();
    const conversationId = await startConversation(p, agent.slug, visitor);
    const viewer = await joinOrganization(p.http, owner, owner.orgId, await registerUser(p.http, { label: 'presence-viewer' }), 'viewer');
    const member = await joinOrganization(p.http, owner, owner.orgId, await registerUser(p.http, { label: 'presence-member' }), 'member');
    // found by the BOLA generator's viewer pass: a viewer could speak to visitors as an operator
    expect((await operatorEvent(conversationId, { type: 'operator.left' }, viewer)).status).toBe(403);
    expect((await operatorEvent(conversationId, { type: 'operator.left' }, member)).status).toBe(202);
    expect((await operatorEvent(conversationId, { type: 'operator.dancing' })).status).toBe(400);
    expect((await operatorEvent(conversationId, { type: 'operator.message' })).status).toBe(400);
    const outsider = await registerUser(p.http, { label: 'presence-outsider' });
    expect((await operatorEvent(conversationId, { type: 'operator.joined' }, outsider)).status).toBe(404);
    expect((await operatorEvent(randomUUID(), { type: 'operator.joined' })).status).toBe(404);
    expect(
      (await p.http.post(`/api/bots/${agent.id}/conversations/${conversationId}/operator-events`, { type: 'operator.joined' })).status,
    ).toBe(401);
  });
});

describe('rate limits', () => {
  it('limits chat per anonymousId (conversation starts included) with 429 rate limited and Retry-After in seconds', async () => {
    const visitor = randomUUID();
    const conversationId = await startConversation(p, agent.slug, visitor);
    const send = () => p.http.post(`${base(agent.slug)}/chat`, { message: 'refunds?', conversationId, anonymousId: visitor });
    expect((await send()).status).toBe(200);
    expect((await send()).status).toBe(200);
    const limited = await send();
    expect(limited.status).toBe(429);
    expect(limited.body.error).toBe('rate limited');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(120); // sliding window: a hit is forgotten within two windows
    expect((await p.http.post(`${base(agent.slug)}/conversations`, { anonymousId: visitor })).status).toBe(429);
    // Another visitor is not affected by this one's limit.
    const other = randomUUID();
    expect(
      (
        await p.http.post(`${base(agent.slug)}/chat`, {
          message: 'refunds?',
          conversationId: await startConversation(p, agent.slug, other),
          anonymousId: other,
        })
      ).status,
    ).toBe(200);
  });

  it('limits chat per IP whatever the anonymousId', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 15 && !statuses.includes(429); i++) {
      const r = await p.http.post(`${base(agent.slug)}/chat`, { message: 'hi', conversationId: randomUUID(), anonymousId: randomUUID() });
      statuses.push(r.status);
      if (r.status === 429) expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.slice(0, -1).every((s) => s === 404)).toBe(true);
  });

  it('limits uploads per anonymousId', async () => {
    const visitor = randomUUID();
    const file = { name: 'note.txt', type: 'text/plain', bytes: Buffer.from('a note') };
    expect((await uploadAttachment(p, agent.slug, visitor, file)).status).toBe(200);
    const limited = await uploadAttachment(p, agent.slug, visitor, file);
    expect(limited.status).toBe(429);
    expect(limited.body.error).toBe('rate limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});
