/**
 * WhatsApp Business end to end through the gateway (docs/contracts.md "Channels"): channel CRUD with write-only
 * secrets, the webhook verification challenge, signed notifications (X-Hub-Signature-256 over the raw body)
 * queued and answered through a local fake of the Graph API, idempotency on message ids, statuses ignored,
 * contacts by E.164 phone, operator messages delivered through the channel, delete-impact and deactivation.
 */
import { randomUUID } from 'node:crypto';

import { FakeHttpServer } from '../fakes/fake-http-server';
import { whatsappNotification, whatsappSignature, whatsappText } from '../fakes/whatsapp-notification';
import { knowledgeBaseWithDocument, waitFor } from '../public-chat/public-support';
import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { registerUser, type TestUser } from '../support/users';

const APP_SECRET = 'app-secret-0123456789';
const ACCESS_TOKEN = 'EAAG-access-token-abcdef';
const VERIFY_TOKEN = 'verify-token-12345';

let p: TestPlatform;
let graph: FakeHttpServer;
let owner: TestUser;
let other: TestUser;
let agentId: string;
let channel: { id: string; inboundUrl: string };

beforeAll(async () => {
  graph = new FakeHttpServer((req) =>
    req.method === 'POST' && /\/\d+\/messages$/.test(req.path) ? { json: { messages: [{ id: `wamid.${randomUUID()}` }] } } : undefined,
  );
  const graphUrl = await graph.start();
  p = await startTestPlatform({ WHATSAPP_GRAPH_API_URL: `${graphUrl}/v20.0`, LOG_LEVEL: 'warn' });
  owner = await registerUser(p.http, { label: 'wa-owner' });
  other = await registerUser(p.http, { label: 'wa-other' });
  const kbId = await knowledgeBaseWithDocument(p, owner);
  const created = await p.http.post('/api/bots', { name: 'WhatsApp agent', knowledgeBaseIds: [kbId] }, { token: owner.accessToken });
  agentId = created.body.bot.id;
}, BOOT_TIMEOUT_MS);
afterAll(async () => {
  await p?.close();
  await graph?.close();
}, BOOT_TIMEOUT_MS);

const inbound = (channelId = channel.id) => `/api/public/channels/${channelId}/inbound`;
const sign = (raw: string, secret = APP_SECRET) => whatsappSignature(raw, secret);

const GRACE = { waId: '4915112345678', name: 'Grace Hopper' };
const notification = (messages: unknown[], statuses: unknown[] = []) => whatsappNotification({ sender: GRACE, messages, statuses });
const text = (id: string, body: string) => whatsappText(GRACE.waId, id, body);
const post = (raw: string, signature = sign(raw)) =>
  p.http.post(inbound(), raw, { headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature } });
const sentToGraph = () => graph.requests.filter((r) => r.method === 'POST');

describe('a WhatsApp Business channel', () => {
  it('is created under the agent with secrets validated and never returned', async () => {
    const bad = await p.http.post(
      `/api/bots/${agentId}/channels`,
      { type: 'whatsapp_business', label: 'Support line', config: { phoneNumberId: '1234567890' }, secrets: { appSecret: APP_SECRET } },
      { token: owner.accessToken },
    );
    expect(bad.status).toBe(400);
    const r = await p.http.post(
      `/api/bots/${agentId}/channels`,
      {
        type: 'whatsapp_business',
        label: 'Support line',
        config: { phoneNumberId: '1234567890' },
        secrets: { appSecret: APP_SECRET, accessToken: ACCESS_TOKEN, verifyToken: VERIFY_TOKEN },
      },
      { token: owner.accessToken },
    );
    expect(r.status).toBe(201);
    channel = r.body.channel;
    expect(r.body.channel).toMatchObject({ botId: agentId, type: 'whatsapp_business', label: 'Support line', isActive: true });
    expect(r.body.channel.inboundUrl).toMatch(new RegExp(`/api/public/channels/${channel.id}/inbound$`));
    expect(r.text).not.toContain(APP_SECRET);
    const listed = await p.http.get(`/api/bots/${agentId}/channels`, { token: owner.accessToken });
    expect(listed.body.channels.map((c: { id: string }) => c.id)).toEqual([channel.id]);
    expect(listed.text).not.toContain(ACCESS_TOKEN);
    expect((await p.http.get(`/api/bots/${agentId}/channels`, { token: other.accessToken })).status).toBe(404);
  });

  it('answers the verification challenge only with the verify token', async () => {
    const ok = await p.http.get(`${inbound()}?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1158201444`);
    expect(ok.status).toBe(200);
    expect(ok.text).toBe('1158201444');
    const wrong = await p.http.get(`${inbound()}?hub.mode=subscribe&hub.verify_token=nope-nope-nope&hub.challenge=1`);
    expect(wrong.status).toBe(401);
    expect((await p.http.get(`${inbound(randomUUID())}?hub.mode=subscribe`)).status).toBe(404);
  });

  it('refuses a bad signature with 401 and stores nothing', async () => {
    const raw = notification([text('wamid.forged', 'my name is Mallory')]);
    expect((await post(raw, sign(raw, 'not-the-app-secret'))).status).toBe(401);
    expect((await post(raw, 'sha256=00')).status).toBe(401);
    expect((await p.http.post(inbound(), raw, { headers: { 'content-type': 'application/json' } })).status).toBe(401);
    expect((await p.http.get('/api/contacts', { token: owner.accessToken })).body.total).toBe(0);
  });

  it('queues a signed message, answers 200, replies through the Graph API once, and ignores statuses', async () => {
    const raw = notification([text('wamid.first', 'Hello, how fast are refunds paid?')]);
    const r = await post(raw);
    expect(r.status).toBe(200);
    await waitFor(async () => sentToGraph().length === 1, 'the reply to reach the Graph API');
    const sent = sentToGraph()[0];
    expect(sent.path).toBe('/v20.0/1234567890/messages');
    expect(sent.headers.authorization).toBe(`Bearer ${ACCESS_TOKEN}`);
    expect(sent.json).toMatchObject({
      messaging_product: 'whatsapp',
      to: '4915112345678',
      type: 'text',
      text: { body: expect.any(String) },
    });

    // A redelivery of the same message id and a status notification: no second reply.
    expect((await post(raw)).status).toBe(200);
    expect((await post(notification([], [{ id: 'wamid.first', status: 'read', recipient_id: '4915112345678' }]))).status).toBe(200);
    const second = notification([text('wamid.second', 'Thanks!')]);
    expect((await post(second)).status).toBe(200);
    await waitFor(async () => sentToGraph().length === 2, 'the second reply');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sentToGraph()).toHaveLength(2);

    const contacts = (await p.http.get('/api/contacts?channel=whatsapp_business', { token: owner.accessToken })).body;
    expect(contacts.total).toBe(1);
    expect(contacts.contacts[0]).toMatchObject({
      displayName: 'Grace Hopper',
      primaryPhone: '+4915112345678',
      channels: ['whatsapp_business'],
      status: 'engaged',
      conversationCount: 1,
    });
    const convs = (await p.http.get(`/api/contacts/${contacts.contacts[0].id}/conversations`, { token: owner.accessToken })).body;
    expect(convs.conversations).toEqual([expect.objectContaining({ platform: 'whatsapp_business', bot_id: agentId })]);
    const messages = await p.store.repos.conversations.messages(owner.orgId, convs.conversations[0].id);
    expect(messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(['Hello, how fast are refunds paid?', 'Thanks!']);
  });

  it('sees a rotated app secret and a paused channel at once (the webhook reads the channel from memory)', async () => {
    const patch = (body: unknown) => p.http.patch(`/api/bots/${agentId}/channels/${channel.id}`, body, { token: owner.accessToken });
    const raw = notification([], [{ id: 'wamid.first', status: 'delivered', recipient_id: '4915112345678' }]);
    expect((await post(raw)).status).toBe(200); // the channel is now in the webhook's memory
    expect((await patch({ secrets: { appSecret: 'rotated-app-secret-987' } })).status).toBe(200);
    expect((await post(raw)).status).toBe(401);
    expect((await post(raw, sign(raw, 'rotated-app-secret-987'))).status).toBe(200);
    expect((await patch({ isActive: false })).status).toBe(200);
    expect((await post(raw, sign(raw, 'rotated-app-secret-987'))).status).toBe(404);
    expect((await patch({ isActive: true, secrets: { appSecret: APP_SECRET } })).status).toBe(200);
    expect((await post(raw)).status).toBe(200);
  });

  it('delivers an operator message of the conversation through the channel', async () => {
    const contact = (await p.http.get('/api/contacts?channel=whatsapp_business', { token: owner.accessToken })).body.contacts[0];
    const conv = (await p.http.get(`/api/contacts/${contact.id}/conversations`, { token: owner.accessToken })).body.conversations[0];
    const before = sentToGraph().length;
    const r = await p.http.post(
      `/api/bots/${agentId}/conversations/${conv.id}/operator-events`,
      { type: 'operator.message', message: 'A human here: refunds take 14 days.' },
      { token: owner.accessToken },
    );
    expect(r.status).toBeLessThan(300);
    await waitFor(async () => sentToGraph().length === before + 1, 'the operator message to reach the Graph API');
    expect(sentToGraph()[before].json.text.body).toBe('A human here: refunds take 14 days.');
  });

  it('is listed in delete-impact; deleting the agent deactivates it and inbound then answers 404', async () => {
    const impact = await p.http.get(`/api/bots/${agentId}/delete-impact`, { token: owner.accessToken });
    expect(impact.body.channels).toEqual([{ id: channel.id, type: 'whatsapp_business', label: 'Support line', isActive: true }]);
    expect((await p.http.delete(`/api/bots/${agentId}`, { token: owner.accessToken })).status).toBe(204);
    const raw = notification([text('wamid.after-delete', 'Anyone there?')]);
    expect((await post(raw)).status).toBe(404);
  });
});
