/**
 * Channel replies are an outbox (docs/contracts.md "Delivery guarantees"): a reply counts as sent only once the provider
 * accepted it, a refused send is retried with backoff (CHANNEL_RETRY_BACKOFF_MS, 5 attempts, then `failed`) and
 * every delivery is listed at GET /api/bots/:id/channels/:channelId/deliveries. Through the gateway, with a local
 * fake of the Graph API and a local SMTP relay (`smtp-server`) that refuse on demand: each reply reaches its
 * provider exactly once, a redelivered inbound message (same provider id) neither answers twice nor sends twice,
 * and a delivery whose queue message was lost is taken up by the relay or by the inbound redelivery.
 *
 * lastError after a success: the error of the failed attempt stays (with attempts 2 it tells why the reply was
 * late); sentAt says it went out.
 */
import { createHmac, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';

import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

import { SERVICES } from '../../app/container';
import type { Services } from '../../app/services';
import { relayStalledChannelDeliveries } from '../../core/channels/deliveries';
import { FakeHttpServer } from '../fakes/fake-http-server';
import { whatsappNotification, whatsappSignature, whatsappText } from '../fakes/whatsapp-notification';
import { knowledgeBaseWithDocument, waitFor } from '../public-chat/public-support';
import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { registerUser, type TestUser } from '../support/users';

const APP_SECRET = 'app-secret-0123456789';
const ACCESS_TOKEN = 'EAAG-access-token-abcdef';
const WEBHOOK_SECRET = 'email-webhook-secret-0123456789';
/** Backoff base of the platform under test: attempts after 0.3 s, 0.6 s, 1.2 s, 2.4 s. */
const BACKOFF_MS = 300;

let p: TestPlatform;
let graph: FakeHttpServer;
/** Sends the Graph API accepted (200 with a message id). */
let graphAccepted = 0;
let relay: SMTPServer;
/** Mails the SMTP relay accepted, and the ones it refused (parsed all the same). */
const mailed: ParsedMail[] = [];
const refusedMail: ParsedMail[] = [];
let refuseNextMails = 0;
let owner: TestUser;
let other: TestUser;
let agentId: string;
let wa: { id: string };
let mail: { id: string };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  graph = new FakeHttpServer((req) => {
    if (req.method !== 'POST' || !/\/\d+\/messages$/.test(req.path)) return undefined;
    graphAccepted += 1;
    return { json: { messages: [{ id: `wamid.${randomUUID()}` }] } };
  });
  const graphUrl = await graph.start();
  relay = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, _session, callback) {
      const refuse = refuseNextMails > 0;
      if (refuse) refuseNextMails -= 1;
      simpleParser(stream)
        .then((parsed) => {
          if (!refuse) return void mailed.push(parsed);
          refusedMail.push(parsed);
          throw Object.assign(new Error('Mailbox busy, try again later'), { responseCode: 451 });
        })
        .then(() => callback(), callback);
    },
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const relayPort = (relay.server.address() as AddressInfo).port;
  p = await startTestPlatform({
    WHATSAPP_GRAPH_API_URL: `${graphUrl}/v20.0`,
    EMAIL_SMTP_RELAY_URL: `smtp://127.0.0.1:${relayPort}?ignoreTLS=true`,
    CHANNEL_RETRY_BACKOFF_MS: String(BACKOFF_MS),
    // The platform's inbound domain: support@acme.test is active without a mailed code.
    EMAIL_INBOUND_DOMAIN: 'acme.test',
  });
  owner = await registerUser(p.http, { label: 'deliveries-owner' });
  other = await registerUser(p.http, { label: 'deliveries-other' });
  const kbId = await knowledgeBaseWithDocument(p, owner);
  agentId = (await p.http.post('/api/bots', { name: 'Delivery agent', knowledgeBaseIds: [kbId] }, { token: owner.accessToken })).body.bot
    .id;
  const create = async (body: unknown) => {
    const r = await p.http.post(`/api/bots/${agentId}/channels`, body, { token: owner.accessToken });
    expect(r.status).toBe(201);
    return r.body.channel as { id: string };
  };
  wa = await create({
    type: 'whatsapp_business',
    label: 'Support line',
    config: { phoneNumberId: '1234567890' },
    secrets: { appSecret: APP_SECRET, accessToken: ACCESS_TOKEN, verifyToken: 'verify-token-12345' },
  });
  mail = await create({
    type: 'email',
    label: 'Support inbox',
    config: { address: 'support@acme.test', fromName: 'Acme' },
    secrets: { webhookSecret: WEBHOOK_SECRET },
  });
}, BOOT_TIMEOUT_MS);
afterAll(async () => {
  await p?.close();
  await graph?.close();
  await new Promise<void>((resolve) => (relay ? relay.close(() => resolve()) : resolve()));
}, BOOT_TIMEOUT_MS);

const GRACE = { waId: '4915112345678', name: 'Grace Hopper' };
const waMessage = (id: string, body: string, sender = GRACE) =>
  whatsappNotification({ sender, messages: [whatsappText(sender.waId, id, body)] });
const postWhatsapp = (raw: string) =>
  p.http.post(`/api/public/channels/${wa.id}/inbound`, raw, {
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': whatsappSignature(raw, APP_SECRET) },
  });
const graphPosts = () => graph.requests.filter((r) => r.method === 'POST');

const postEmail = (body: Record<string, unknown>) => {
  const raw = JSON.stringify(body);
  return p.http.post(`/api/public/channels/${mail.id}/inbound`, raw, {
    headers: {
      'content-type': 'application/json',
      'x-channel-signature': `sha256=${createHmac('sha256', WEBHOOK_SECRET).update(raw).digest('hex')}`,
    },
  });
};

interface DeliveryItem {
  id: string;
  conversationId: string;
  status: string;
  attempts: number;
  lastError: string | null;
  createdAt: string;
  sentAt: string | null;
}
async function deliveries(channelId: string, query = ''): Promise<DeliveryItem[]> {
  const r = await p.http.get(`/api/bots/${agentId}/channels/${channelId}/deliveries${query}`, { token: owner.accessToken });
  expect(r.status).toBe(200);
  return r.body.deliveries;
}

async function messagesOf(conversationId: string) {
  const all = await p.store.repos.conversations.messages(owner.orgId, conversationId);
  return { user: all.filter((m) => m.role === 'user'), assistant: all.filter((m) => m.role === 'assistant') };
}

describe('channel replies as an outbox', () => {
  it('retries a WhatsApp reply the Graph API refused: accepted exactly once, listed sent after 2 attempts', async () => {
    graph.replyOnce({ status: 500, json: { error: { message: 'Service temporarily unavailable' } } });
    expect((await postWhatsapp(waMessage('wamid.retry-1', 'How fast are refunds paid?'))).status).toBe(200);

    await waitFor(async () => graphAccepted === 1, 'the retried reply to be accepted by the Graph API');
    await sleep(BACKOFF_MS * 4); // past any further attempt: none comes
    expect(graphAccepted).toBe(1);
    expect(graphPosts()).toHaveLength(2);
    // Both attempts carried the same reply.
    expect(graphPosts()[1].json).toEqual(graphPosts()[0].json);
    expect(graphPosts()[1].json).toMatchObject({ to: GRACE.waId, type: 'text' });

    const listed = await deliveries(wa.id);
    expect(listed).toEqual([
      {
        id: expect.any(String),
        conversationId: expect.any(String),
        status: 'sent',
        attempts: 2,
        lastError: 'Graph API answered 500',
        createdAt: expect.any(String),
        sentAt: expect.any(String),
      },
    ]);
    expect(Date.parse(listed[0].sentAt!)).toBeGreaterThanOrEqual(Date.parse(listed[0].createdAt) + BACKOFF_MS);
    const { user, assistant } = await messagesOf(listed[0].conversationId);
    expect(user.map((m) => m.content)).toEqual(['How fast are refunds paid?']);
    expect(assistant).toHaveLength(1);
    expect(graphPosts()[1].json.text.body).toBe(assistant[0].content);
  });

  it('a WhatsApp message redelivered while its reply waits for a retry, and after it was sent: one answer, one accepted send', async () => {
    const postsBefore = graphPosts().length;
    graph.replyOnce({ status: 503, json: { error: { message: 'busy' } } });
    const raw = waMessage('wamid.redelivered', 'Do you ship abroad?');
    expect((await postWhatsapp(raw)).status).toBe(200);
    await waitFor(async () => graphPosts().length === postsBefore + 1, 'the first, refused send');
    // Meta delivers the same notification again (our answer was slow, say): twice.
    expect((await postWhatsapp(raw)).status).toBe(200);
    expect((await postWhatsapp(raw)).status).toBe(200);
    await waitFor(async () => graphAccepted === 2, 'the reply to be accepted');
    await sleep(BACKOFF_MS * 4);
    expect(graphAccepted).toBe(2);
    expect(graphPosts()).toHaveLength(postsBefore + 2);

    const [latest, ...older] = await deliveries(wa.id);
    expect(older).toHaveLength(1);
    expect(latest).toMatchObject({ status: 'sent', attempts: 2, lastError: 'Graph API answered 503' });
    // The same contact's running thread: both turns are in one conversation, each answered once.
    expect(latest.conversationId).toBe(older[0].conversationId);
    const before = await messagesOf(latest.conversationId);
    expect(before.user.map((m) => m.content)).toEqual(['How fast are refunds paid?', 'Do you ship abroad?']);
    expect(before.assistant).toHaveLength(2);

    // Once more after it was sent: nothing is answered or sent.
    expect((await postWhatsapp(raw)).status).toBe(200);
    await sleep(1000);
    expect(graphPosts()).toHaveLength(postsBefore + 2);
    expect(await deliveries(wa.id)).toHaveLength(2);
    const after = await messagesOf(latest.conversationId);
    expect(after.user).toHaveLength(2);
    expect(after.assistant).toHaveLength(2);
  });

  it('retries an email reply the SMTP relay refused once: one mail, the same Message-ID, listed sent after 2 attempts', async () => {
    refuseNextMails = 1;
    const inbound = { messageId: '<retry-1@example.org>', from: 'ada@example.org', subject: 'Refunds', text: 'How fast are refunds paid?' };
    expect((await postEmail(inbound)).status).toBe(200);
    await waitFor(async () => mailed.length === 1, 'the retried reply through the relay');
    await sleep(BACKOFF_MS * 4);
    expect(mailed).toHaveLength(1);
    expect(refusedMail).toHaveLength(1);
    const reply = mailed[0];
    expect(reply.subject).toBe('Re: Refunds');
    expect(reply.inReplyTo).toBe('<retry-1@example.org>');
    // The retried send is the same message.
    expect(reply.messageId).toBe(refusedMail[0].messageId);
    expect(reply.text?.trim()).toBe(refusedMail[0].text?.trim());

    const listed = await deliveries(mail.id);
    expect(listed).toEqual([expect.objectContaining({ status: 'sent', attempts: 2, lastError: expect.stringContaining('451') })]);
    const { user, assistant } = await messagesOf(listed[0].conversationId);
    expect(user).toHaveLength(1);
    expect(assistant).toHaveLength(1);

    // The same email redelivered: nothing answered or mailed twice.
    expect((await postEmail(inbound)).status).toBe(200);
    await sleep(1000);
    expect(mailed).toHaveLength(1);
    expect(refusedMail).toHaveLength(1);
    expect(await deliveries(mail.id)).toHaveLength(1);
    const again = await messagesOf(listed[0].conversationId);
    expect(again.user).toHaveLength(1);
    expect(again.assistant).toHaveLength(1);

    // The answer to the retried reply threads into the same conversation (its Message-ID was recorded once sent).
    const answer = {
      messageId: '<retry-2@example.org>',
      from: 'ada@example.org',
      subject: 'Re: Refunds',
      text: 'Thanks!',
      inReplyTo: reply.messageId,
    };
    expect((await postEmail(answer)).status).toBe(200);
    await waitFor(async () => mailed.length === 2, 'the reply to the answer');
    const threaded = await deliveries(mail.id);
    expect(threaded).toHaveLength(2);
    expect(threaded[0].conversationId).toBe(listed[0].conversationId);
  });

  it('ends a reply failed after 5 refused attempts, with the reason', async () => {
    const postsBefore = graphPosts().length;
    const accepted = graphAccepted;
    const refusal = { status: 500, json: { error: { message: 'down' } } };
    graph.replyOnce(refusal, refusal, refusal, refusal, refusal);
    const raw = waMessage('wamid.doomed', 'Hello?', { waId: '4915187654321', name: 'Alan Turing' });
    expect((await postWhatsapp(raw)).status).toBe(200);
    await waitFor(async () => graphPosts().length === postsBefore + 5, 'five attempts');
    const failed = await waitFor(async () => {
      const [latest] = await deliveries(wa.id);
      return latest?.status === 'failed' && latest;
    }, 'the delivery to fail');
    expect(failed).toMatchObject({ attempts: 5, lastError: 'Graph API answered 500', sentAt: null });
    expect(graphPosts()).toHaveLength(postsBefore + 5);
    // A failed delivery is settled: a redelivered message does not start it again.
    expect((await postWhatsapp(raw)).status).toBe(200);
    await sleep(1000);
    expect(graphPosts()).toHaveLength(postsBefore + 5);
    expect(graphAccepted).toBe(accepted);
  });

  it('sends a pending reply whose queue message was lost: by the relay, or when the inbound message is redelivered', async () => {
    const [sent] = (await deliveries(wa.id)).filter((d) => d.status === 'sent');
    const services = p.container.get<Services>(SERVICES);
    const longAgo = new Date(Date.now() - 10 * 60_000).toISOString();
    const lost = (inboundMessageId: string | null, text: string, at: string) => ({
      id: randomUUID(),
      organizationId: owner.orgId,
      channelId: wa.id,
      agentId,
      conversationId: sent.conversationId,
      inboundMessageId,
      messageId: null,
      externalId: null,
      payload: { to: `+${GRACE.waId}`, text },
      status: 'pending' as const,
      attempts: 0,
      lastError: null,
      nextAttemptAt: at,
      createdAt: at,
      updatedAt: at,
      sentAt: null,
    });
    const answersBefore = (await messagesOf(sent.conversationId)).assistant.length;

    // Written, never queued (the enqueue after commit failed, or the embedded queue died with its process).
    const orphan = lost(null, 'A reply whose message was lost', longAgo);
    expect(await p.store.repos.channelDeliveries.create(orphan)).toBe(true);
    expect(await relayStalledChannelDeliveries(services.channels)).toBeGreaterThanOrEqual(1);
    await waitFor(async () => graphPosts().some((r) => r.json?.text?.body === orphan.payload.text), 'the relayed reply');

    // An inbound message answered just before a crash, its reply never queued (not stalled yet, so the relay leaves
    // it alone): the redelivered message only sends the stored reply.
    const answered = lost('wamid.answered-before-crash', 'The stored answer', new Date().toISOString());
    expect(await p.store.repos.channelDeliveries.create(answered)).toBe(true);
    expect((await postWhatsapp(waMessage('wamid.answered-before-crash', 'Are you open on Sundays?'))).status).toBe(200);
    await waitFor(async () => graphPosts().some((r) => r.json?.text?.body === answered.payload.text), 'the resumed reply');

    await sleep(BACKOFF_MS * 2);
    const byId = new Map((await deliveries(wa.id)).map((d) => [d.id, d]));
    expect(byId.get(orphan.id)).toMatchObject({ status: 'sent', attempts: 1, lastError: null });
    expect(byId.get(answered.id)).toMatchObject({ status: 'sent', attempts: 1, lastError: null });
    expect(graphPosts().filter((r) => [orphan.payload.text, answered.payload.text].includes(r.json?.text?.body))).toHaveLength(2);
    // Nothing was answered again.
    const { user, assistant } = await messagesOf(sent.conversationId);
    expect(user.map((m) => m.content)).not.toContain('Are you open on Sundays?');
    expect(assistant).toHaveLength(answersBefore);
  });

  it('lists deliveries newest first with limit and offset, to editors of the agent only', async () => {
    const all = await deliveries(wa.id);
    expect(all.length).toBeGreaterThanOrEqual(3);
    const created = all.map((d) => Date.parse(d.createdAt));
    expect([...created].sort((a, b) => b - a)).toEqual(created);
    expect(await deliveries(wa.id, '?limit=1')).toEqual([all[0]]);
    expect(await deliveries(wa.id, '?limit=2&offset=1')).toEqual(all.slice(1, 3));
    expect((await p.http.get(`/api/bots/${agentId}/channels/${wa.id}/deliveries?limit=0`, { token: owner.accessToken })).status).toBe(400);

    // Another organization: its member sees neither the agent nor the channel under an agent of its own.
    const path = `/api/bots/${agentId}/channels/${wa.id}/deliveries`;
    expect((await p.http.get(path, { token: other.accessToken })).status).toBe(404);
    const theirs = (
      await p.http.post('/api/bots', { name: 'Their agent', knowledgeBaseIds: [], isDraft: true }, { token: other.accessToken })
    ).body.bot.id;
    expect((await p.http.get(`/api/bots/${theirs}/channels/${wa.id}/deliveries`, { token: other.accessToken })).status).toBe(404);
    expect((await p.http.get(`/api/bots/${agentId}/channels/${randomUUID()}/deliveries`, { token: owner.accessToken })).status).toBe(404);
    expect((await p.http.get(path)).status).toBe(401);
  });
});
