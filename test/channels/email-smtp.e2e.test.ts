/**
 * Email through the platform's own SMTP listener (EMAIL_SMTP_PORT): a real SMTP conversation on loopback with
 * nodemailer as the sending client. A message to an email channel's configured address creates the contact, the
 * conversation and an agent reply through the relay (an `smtp-server` fake started here); a reply carrying
 * In-Reply-To lands in the same conversation; unknown recipients and foreign domains are refused at RCPT TO
 * with 550; an oversized message is refused with 552 and nothing of it is stored.
 */
import type { AddressInfo } from 'node:net';

import { type ParsedMail, simpleParser } from 'mailparser';
import nodemailer, { type Transporter } from 'nodemailer';
import { SMTPServer } from 'smtp-server';

import { knowledgeBaseWithDocument, waitFor } from '../public-chat/public-support';
import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { registerUser, type TestUser } from '../support/users';

const MAX_BYTES = 64 * 1024;
let p: TestPlatform;
let relay: SMTPServer;
const relayed: ParsedMail[] = [];
let owner: TestUser;
let client: Transporter;

beforeAll(async () => {
  relay = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => relayed.push(mail))
        .then(() => callback(), callback);
    },
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const relayPort = (relay.server.address() as AddressInfo).port;
  p = await startTestPlatform({
    EMAIL_SMTP_RELAY_URL: `smtp://127.0.0.1:${relayPort}?ignoreTLS=true`,
    EMAIL_SMTP_PORT: '0',
    EMAIL_SMTP_DOMAIN: 'acme.test',
    // The platform's inbound domain: support@acme.test is active without a mailed code.
    EMAIL_INBOUND_DOMAIN: 'acme.test',
    EMAIL_SMTP_MAX_BYTES: String(MAX_BYTES),
  });
  expect(p.smtpPort).toEqual(expect.any(Number));
  client = nodemailer.createTransport({ host: '127.0.0.1', port: p.smtpPort!, secure: false, ignoreTLS: true });
  owner = await registerUser(p.http, { label: 'smtp-owner' });
  const kbId = await knowledgeBaseWithDocument(p, owner);
  const agentId = (await p.http.post('/api/bots', { name: 'Mail agent', knowledgeBaseIds: [kbId] }, { token: owner.accessToken })).body.bot
    .id;
  const r = await p.http.post(
    `/api/bots/${agentId}/channels`,
    { type: 'email', label: 'Support inbox', config: { address: 'support@acme.test', fromName: 'Acme' }, secrets: {} },
    { token: owner.accessToken },
  );
  expect(r.status).toBe(201);
}, BOOT_TIMEOUT_MS);
afterAll(async () => {
  client?.close();
  await p?.close();
  await new Promise<void>((resolve) => relay?.close(() => resolve()));
}, BOOT_TIMEOUT_MS);

const contacts = async () => (await p.http.get('/api/contacts?channel=email', { token: owner.accessToken })).body;

describe('the inbound SMTP listener', () => {
  it('answers a mail to the channel address through the relay and threads the reply into the same conversation', async () => {
    const sent = await client.sendMail({
      from: '"Ada Lovelace" <Ada.Lovelace@Example.org>',
      to: 'Support@ACME.test', // addresses match case-insensitively
      subject: 'Refunds',
      text: 'How fast are refunds paid?',
      messageId: '<smtp-1@example.org>',
    });
    expect(sent.accepted).toHaveLength(1);
    await waitFor(async () => relayed.length === 1, 'the reply through the relay');
    const reply = relayed[0];
    expect(reply.to && 'value' in reply.to ? reply.to.value[0].address : null).toBe('ada.lovelace@example.org');
    expect(reply.from?.value[0]).toMatchObject({ address: 'support@acme.test', name: 'Acme' });
    expect(reply.subject).toBe('Re: Refunds');
    expect(reply.inReplyTo).toBe('<smtp-1@example.org>');

    await client.sendMail({
      from: 'ada.lovelace@example.org',
      to: 'support@acme.test',
      subject: 'Re: Refunds',
      text: 'Thank you!\n\nOn Mon, 1 Jan 2026 Acme wrote:\n> earlier text',
      messageId: '<smtp-2@example.org>',
      inReplyTo: reply.messageId,
      references: ['<smtp-1@example.org>', reply.messageId!],
    });
    await waitFor(async () => relayed.length === 2, 'the second reply');
    expect(relayed[1].inReplyTo).toBe('<smtp-2@example.org>');

    const listed = await contacts();
    expect(listed.contacts).toEqual([
      expect.objectContaining({ primaryEmail: 'ada.lovelace@example.org', displayName: 'Ada Lovelace', conversationCount: 1 }),
    ]);
    const conv = (await p.http.get(`/api/contacts/${listed.contacts[0].id}/conversations`, { token: owner.accessToken })).body
      .conversations;
    expect(conv).toEqual([expect.objectContaining({ platform: 'email' })]);
    const messages = await p.store.repos.conversations.messages(owner.orgId, conv[0].id);
    expect(messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(['How fast are refunds paid?', 'Thank you!']);
  });

  it('refuses unknown recipients and other domains at RCPT TO with 550', async () => {
    for (const to of ['nobody@acme.test', 'support@elsewhere.test']) {
      const refused = await client.sendMail({ from: 'grace@example.org', to, text: 'hello' }).catch((e) => e);
      expect(refused).toBeInstanceOf(Error);
      expect(refused.rejectedErrors?.[0]?.responseCode ?? refused.responseCode).toBe(550);
    }
    // One good recipient among refused ones: the message goes to the channel, the others are reported refused.
    const mixed = await client.sendMail({
      from: 'grace@example.org',
      to: ['nobody@acme.test', 'support@acme.test'],
      text: 'My name is Grace Hopper, what are your opening hours?',
      messageId: '<smtp-3@example.org>',
    });
    expect(mixed.accepted).toEqual(['support@acme.test']);
    expect(mixed.rejected).toEqual(['nobody@acme.test']);
    await waitFor(async () => relayed.length === 3, 'the reply to the mixed envelope');
    expect(relayed[2].to && 'value' in relayed[2].to ? relayed[2].to.value[0].address : null).toBe('grace@example.org');
  });

  it('refuses an oversized message with 552 and stores nothing of it', async () => {
    const before = (await contacts()).total;
    const refused = await client
      .sendMail({ from: 'huge@example.org', to: 'support@acme.test', text: 'x'.repeat(MAX_BYTES * 2), messageId: '<smtp-4@example.org>' })
      .catch((e) => e);
    expect(refused).toBeInstanceOf(Error);
    expect(refused.responseCode).toBe(552);
    // A small message queued after it is answered, and the oversized one never was.
    await client.sendMail({ from: 'small@example.org', to: 'support@acme.test', text: 'Hello there', messageId: '<smtp-5@example.org>' });
    await waitFor(async () => relayed.length === 4, 'the reply to the small message');
    const emails = (await contacts()).contacts.map((c: { primaryEmail: string }) => c.primaryEmail);
    expect(emails).toContain('small@example.org');
    expect(emails).not.toContain('huge@example.org');
    expect((await contacts()).total).toBe(before + 1);
  });
});
