/**
 * Email channel end to end: inbound through the signed webhook, replies through a real SMTP conversation on
 * loopback (nodemailer to an `smtp-server` started here, parsed with `mailparser`), threads following
 * In-Reply-To/References into one conversation, the contact keyed by the lowercased address.
 */
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';

import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

import { knowledgeBaseWithDocument, waitFor } from '../public-chat/public-support';
import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { registerUser, type TestUser } from '../support/users';

const WEBHOOK_SECRET = 'email-webhook-secret-0123456789';
let p: TestPlatform;
let smtp: SMTPServer;
const received: ParsedMail[] = [];
let owner: TestUser;
let channelId: string;

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => received.push(mail))
        .then(() => callback(), callback);
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const port = (smtp.server.address() as AddressInfo).port;
  // acme.test is the platform's inbound domain: support@acme.test is active at once (a chosen address elsewhere
  // would wait for its mailed code, test/channels/email-addresses.e2e.test.ts).
  p = await startTestPlatform({ EMAIL_SMTP_RELAY_URL: `smtp://127.0.0.1:${port}?ignoreTLS=true`, EMAIL_INBOUND_DOMAIN: 'acme.test' });
  owner = await registerUser(p.http, { label: 'mail-owner' });
  const kbId = await knowledgeBaseWithDocument(p, owner);
  const agentId = (await p.http.post('/api/bots', { name: 'Mail agent', knowledgeBaseIds: [kbId] }, { token: owner.accessToken })).body.bot
    .id;
  const r = await p.http.post(
    `/api/bots/${agentId}/channels`,
    {
      type: 'email',
      label: 'Support inbox',
      config: { address: 'support@acme.test', fromName: 'Acme' },
      secrets: { webhookSecret: WEBHOOK_SECRET },
    },
    { token: owner.accessToken },
  );
  expect(r.status).toBe(201);
  channelId = r.body.channel.id;
}, BOOT_TIMEOUT_MS);
afterAll(async () => {
  await p?.close();
  await new Promise<void>((resolve) => smtp?.close(() => resolve()));
}, BOOT_TIMEOUT_MS);

function deliver(mail: Record<string, unknown>, secret = WEBHOOK_SECRET) {
  const raw = JSON.stringify(mail);
  const signature = `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
  return p.http.post(`/api/public/channels/${channelId}/inbound`, raw, {
    headers: { 'content-type': 'application/json', 'x-channel-signature': signature },
  });
}

describe('an email channel', () => {
  it('answers a signed inbound email over SMTP and threads the reply to it into the same conversation', async () => {
    expect((await deliver({ messageId: '<m1@example.org>', from: 'x@example.org', text: 'hi' }, 'wrong-secret-0123456789')).status).toBe(
      401,
    );
    const first = await deliver({
      messageId: '<m1@example.org>',
      from: 'Ada.Lovelace@Example.org',
      fromName: 'Ada Lovelace',
      subject: 'Refunds',
      text: 'How fast are refunds paid?',
    });
    expect(first.status).toBe(200);
    await waitFor(async () => received.length === 1, 'the reply over SMTP');
    const reply = received[0];
    expect(reply.to && 'value' in reply.to ? reply.to.value[0].address : null).toBe('ada.lovelace@example.org');
    expect(reply.from?.value[0]).toMatchObject({ address: 'support@acme.test', name: 'Acme' });
    expect(reply.subject).toBe('Re: Refunds');
    expect(reply.inReplyTo).toBe('<m1@example.org>');
    expect(reply.text?.trim().length).toBeGreaterThan(0);

    // The person answers our reply: same conversation, quoted history dropped.
    const second = await deliver({
      messageId: '<m2@example.org>',
      from: 'ada.lovelace@example.org',
      subject: 'Re: Refunds',
      text: 'Thank you!\n\nOn Mon, 1 Jan 2026 Acme wrote:\n> earlier text',
      inReplyTo: reply.messageId,
      references: ['<m1@example.org>', reply.messageId],
    });
    expect(second.status).toBe(200);
    await waitFor(async () => received.length === 2, 'the second reply');
    expect(received[1].references).toEqual(expect.arrayContaining(['<m1@example.org>', '<m2@example.org>']));

    const contacts = (await p.http.get('/api/contacts?channel=email', { token: owner.accessToken })).body;
    expect(contacts.contacts).toEqual([
      expect.objectContaining({
        primaryEmail: 'ada.lovelace@example.org',
        displayName: 'Ada Lovelace',
        conversationCount: 1,
        channels: ['email'],
      }),
    ]);
    const conv = (await p.http.get(`/api/contacts/${contacts.contacts[0].id}/conversations`, { token: owner.accessToken })).body
      .conversations;
    expect(conv).toEqual([expect.objectContaining({ platform: 'email' })]);
    const messages = await p.store.repos.conversations.messages(owner.orgId, conv[0].id);
    expect(messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(['How fast are refunds paid?', 'Thank you!']);
  });

  it('stores mail for the operator with no reply during a takeover, and replies again once released', async () => {
    const contact = (await p.http.get('/api/contacts?channel=email', { token: owner.accessToken })).body.contacts[0];
    const [conv] = (await p.http.get(`/api/contacts/${contact.id}/conversations`, { token: owner.accessToken })).body.conversations;
    const events = `/api/bots/${conv.bot_id}/conversations/${conv.id}/operator-events`;
    expect((await p.http.post(events, { type: 'conversation.takeover' }, { token: owner.accessToken })).status).toBe(202);
    const sent = received.length;
    const thread = { from: 'ada.lovelace@example.org', subject: 'Re: Refunds', references: ['<m1@example.org>'] };
    expect((await deliver({ ...thread, messageId: '<m3@example.org>', text: 'Is a person there?' })).status).toBe(200);
    const held = await waitFor(async () => {
      const messages = await p.store.repos.conversations.messages(owner.orgId, conv.id);
      return messages.find((m) => m.content === 'Is a person there?');
    }, 'the held mail to be stored');
    expect(held.metadata).toMatchObject({ heldForOperator: true });

    expect((await p.http.post(events, { type: 'conversation.released' }, { token: owner.accessToken })).status).toBe(202);
    expect((await deliver({ ...thread, messageId: '<m4@example.org>', text: 'Never mind, how fast are refunds?' })).status).toBe(200);
    await waitFor(async () => received.length === sent + 1, 'the reply after release');
    // The one reply sent answers the mail after the release: none went out for the held one.
    expect(received[sent].inReplyTo).toBe('<m4@example.org>');
  });
});
