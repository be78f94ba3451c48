/**
 * Who may receive an email address (docs/contracts.md "Email channel addresses"), through the gateway with the platform's
 * SMTP listener and a local SMTP relay (`smtp-server`) that catches the verification codes and the replies:
 * an address belongs to at most one active channel platform-wide (a second claim, in any letter case, is
 * `409 address_taken`); a channel without an address gets a generated one in EMAIL_INBOUND_DOMAIN that receives
 * mail at once; a chosen address outside that domain stays inactive, receives nothing, until the code mailed to
 * it is posted to .../verify (wrong code 400, too many tries 429).
 */
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';

import { type ParsedMail, simpleParser } from 'mailparser';
import nodemailer, { type Transporter } from 'nodemailer';
import { SMTPServer } from 'smtp-server';

import { knowledgeBaseWithDocument, waitFor } from '../public-chat/public-support';
import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { registerUser, type TestUser } from '../support/users';

const DOMAIN = 'in.platform.test';
const WEBHOOK_SECRET = 'email-webhook-secret-0123456789';
let p: TestPlatform;
let relay: SMTPServer;
const relayed: ParsedMail[] = [];
let client: Transporter;
let alice: TestUser;
let bob: TestUser;
let aliceAgent: string;
let bobAgent: string;

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
  p = await startTestPlatform({
    EMAIL_SMTP_RELAY_URL: `smtp://127.0.0.1:${(relay.server.address() as AddressInfo).port}?ignoreTLS=true`,
    EMAIL_SMTP_PORT: '0',
    EMAIL_INBOUND_DOMAIN: DOMAIN,
  });
  client = nodemailer.createTransport({ host: '127.0.0.1', port: p.smtpPort!, secure: false, ignoreTLS: true });
  alice = await registerUser(p.http, { label: 'addr-alice' });
  bob = await registerUser(p.http, { label: 'addr-bob' });
  const agent = async (u: TestUser) =>
    (
      await p.http.post(
        '/api/bots',
        { name: 'Mail agent', knowledgeBaseIds: [await knowledgeBaseWithDocument(p, u)] },
        { token: u.accessToken },
      )
    ).body.bot.id as string;
  aliceAgent = await agent(alice);
  bobAgent = await agent(bob);
}, BOOT_TIMEOUT_MS);
afterAll(async () => {
  client?.close();
  await p?.close();
  await new Promise<void>((resolve) => relay?.close(() => resolve()));
}, BOOT_TIMEOUT_MS);

const createEmail = (
  u: TestUser,
  agentId: string,
  config: Record<string, unknown>,
  secrets: Record<string, string> = {},
  label = 'Inbox',
) => p.http.post(`/api/bots/${agentId}/channels`, { type: 'email', label, config, secrets }, { token: u.accessToken });
const verify = (u: TestUser, agentId: string, channelId: string, code: string) =>
  p.http.post(`/api/bots/${agentId}/channels/${channelId}/verify`, { code }, { token: u.accessToken });
const mailsTo = (address: string) =>
  relayed.filter((m) => (m.to && 'value' in m.to ? m.to.value.some((v) => v.address?.toLowerCase() === address.toLowerCase()) : false));
const codeMailedTo = async (address: string, label = 'Inbox') => {
  const mail = await waitFor(
    async () => mailsTo(address).find((m) => /verification code/i.test(m.subject ?? '') && m.text?.includes(`"${label}"`)),
    `the code to ${address}`,
  );
  return /Verification code: (\d{6})/.exec(mail.text ?? '')![1];
};
/** Sends through the platform's SMTP listener; the SMTP error when refused. */
const sendTo = (to: string, text: string, from = 'writer@example.org') =>
  client
    .sendMail({ from, to, subject: 'Hello', text })
    .catch((e: { responseCode?: number; rejectedErrors?: { responseCode?: number }[] }) => e);
const refusedCode = (e: unknown) => {
  const err = e as { responseCode?: number; rejectedErrors?: { responseCode?: number }[] };
  return err.rejectedErrors?.[0]?.responseCode ?? err.responseCode;
};

describe('email channel addresses', () => {
  it('refuses a second claim of an address already served, in any letter case, across organizations', async () => {
    const first = await createEmail(alice, aliceAgent, { address: `desk@${DOMAIN}` });
    expect(first.status).toBe(201);
    expect(first.body.channel.isActive).toBe(true);
    for (const address of [`desk@${DOMAIN}`, `DESK@${DOMAIN.toUpperCase()}`]) {
      const second = await createEmail(bob, bobAgent, { address });
      expect(second.status).toBe(409);
      expect(second.body.error).toBe('address_taken');
    }
    // Nor can it be taken over by changing another channel's address.
    const own = await createEmail(bob, bobAgent, {});
    expect(own.status).toBe(201);
    const moved = await p.http.patch(
      `/api/bots/${bobAgent}/channels/${own.body.channel.id}`,
      { config: { address: `Desk@${DOMAIN}` } },
      { token: bob.accessToken },
    );
    expect(moved.status).toBe(409);
    expect(moved.body.error).toBe('address_taken');
    // The database refuses it too, whatever the use case checked.
    const row = await p.store.repos.channels.findById(own.body.channel.id);
    await expect(
      p.store.repos.channels.update(row!.organizationId, row!.id, { config: { address: `desk@${DOMAIN}` } }),
    ).rejects.toMatchObject({ code: 'ADDRESS_TAKEN' });
  });

  it('gives a channel without an address a generated one in the inbound domain, which receives mail at once', async () => {
    const r = await createEmail(alice, aliceAgent, { fromName: 'Acme' });
    expect(r.status).toBe(201);
    const address: string = r.body.channel.config.address;
    expect(address).toMatch(new RegExp(`^[a-z0-9]{8,}@${DOMAIN.replace(/\./g, '\\.')}$`));
    expect(r.body.channel.isActive).toBe(true);
    const other = await createEmail(alice, aliceAgent, {});
    expect(other.body.channel.config.address).not.toBe(address);

    const sent = await sendTo(address, 'How fast are refunds paid?', 'ada@example.org');
    expect((sent as { accepted?: string[] }).accepted).toEqual([address]);
    const reply = await waitFor(async () => mailsTo('ada@example.org')[0], 'the reply to the generated address');
    expect(reply.from?.value[0]).toMatchObject({ address, name: 'Acme' });
  });

  it('keeps a chosen address outside the domain inactive and deaf until the mailed code is given', async () => {
    const address = 'help@customer.example';
    const r = await createEmail(bob, bobAgent, { address: 'Help@Customer.example' }, { webhookSecret: WEBHOOK_SECRET });
    expect(r.status).toBe(201);
    expect(r.body.channel.isActive).toBe(false);
    const channelId: string = r.body.channel.id;
    const code = await codeMailedTo(address);

    // Not delivered while unverified: the listener refuses the recipient, the signed webhook answers 404.
    expect(refusedCode(await sendTo(address, 'Anyone there?', 'early@example.org'))).toBe(550);
    const raw = JSON.stringify({ messageId: '<early@example.org>', from: 'early@example.org', text: 'Anyone there?' });
    const hook = await p.http.post(`/api/public/channels/${channelId}/inbound`, raw, {
      headers: {
        'content-type': 'application/json',
        'x-channel-signature': `sha256=${createHmac('sha256', WEBHOOK_SECRET).update(raw).digest('hex')}`,
      },
    });
    expect(hook.status).toBe(404);
    // Nor can it be switched on without the code.
    const forced = await p.http.patch(`/api/bots/${bobAgent}/channels/${channelId}`, { isActive: true }, { token: bob.accessToken });
    expect(forced.status).toBe(409);

    const wrong = await verify(bob, bobAgent, channelId, code === '000000' ? '111111' : '000000');
    expect(wrong.status).toBe(400);
    // Another organization cannot verify it (the channel is not theirs).
    expect((await verify(alice, bobAgent, channelId, code)).status).toBe(404);
    const ok = await verify(bob, bobAgent, channelId, code);
    expect(ok.status).toBe(200);
    expect(ok.body.channel).toMatchObject({ id: channelId, isActive: true });

    const sent = await sendTo(address, 'What are your opening hours?', 'grace@example.org');
    expect((sent as { accepted?: string[] }).accepted).toEqual([address]);
    await waitFor(async () => mailsTo('grace@example.org')[0], 'the reply once verified');
    expect(mailsTo('early@example.org')).toEqual([]);
  });

  it('refuses a code after too many wrong tries, and activates only one of two pending claims', async () => {
    const address = 'sales@shared.example';
    const a = await createEmail(alice, aliceAgent, { address }, {}, 'Alice sales');
    const b = await createEmail(bob, bobAgent, { address }, {}, 'Bob sales');
    expect([a.status, b.status]).toEqual([201, 201]);
    const aliceCode = await codeMailedTo(address, 'Alice sales');
    const bobCode = await codeMailedTo(address, 'Bob sales');
    // One channel's code does not verify another's.
    if (bobCode !== aliceCode) expect((await verify(alice, aliceAgent, a.body.channel.id, bobCode)).status).toBe(400);
    expect((await verify(alice, aliceAgent, a.body.channel.id, aliceCode)).status).toBe(200);
    // Bob's code is right but the address is now served by Alice's channel.
    const late = await verify(bob, bobAgent, b.body.channel.id, bobCode);
    expect(late.status).toBe(409);
    expect(late.body.error).toBe('address_taken');

    // Too many tries: after 5 wrong codes even the right one is refused.
    const c = await createEmail(bob, bobAgent, { address: 'ops@elsewhere.example' });
    const right = await codeMailedTo('ops@elsewhere.example');
    const bad = right === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) expect((await verify(bob, bobAgent, c.body.channel.id, bad)).status).toBe(400);
    expect((await verify(bob, bobAgent, c.body.channel.id, right)).status).toBe(429);
    // Setting the address again mails a new code that works.
    const before = mailsTo('ops@elsewhere.example').length;
    const again = await p.http.patch(
      `/api/bots/${bobAgent}/channels/${c.body.channel.id}`,
      { config: { address: 'ops@elsewhere.example' } },
      { token: bob.accessToken },
    );
    expect(again.status).toBe(200);
    await waitFor(async () => mailsTo('ops@elsewhere.example').length === before + 1, 'the new code');
    const fresh = /Verification code: (\d{6})/.exec(mailsTo('ops@elsewhere.example')[before].text ?? '')![1];
    expect((await verify(bob, bobAgent, c.body.channel.id, fresh)).status).toBe(200);
  });
});
