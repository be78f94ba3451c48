/**
 * Email: inbound through the platform's SMTP listener (EMAIL_SMTP_PORT, off by default; a message is routed to
 * the active email channel whose `address` is a recipient, see core/channels/email-inbound.ts) or an inbound webhook (POST JSON signed with
 * `X-Channel-Signature: sha256=<HMAC-SHA256 of the raw body keyed with the channel's webhookSecret>`). Both give
 * the worker the same parsed email. Threads follow In-Reply-To/References; replies go out through the SMTP relay
 * (EMAIL_SMTP_RELAY_URL) with In-Reply-To and References set.
 */
import type { ChannelPlugin, InboundMessage } from '../../../core/channels/channel-plugin';
import type { InboundEmail } from '../../../core/channels/email-inbound';
import { validHmacSha256 } from '../_shared/signature';

export type { InboundEmail };

const bracket = (id: string) => (id.startsWith('<') ? id : `<${id}>`);
/** Quoted history below the reply is not what the person said now. */
const stripQuoted = (text: string) =>
  text
    .split(/\r?\n(?:On .{5,200} wrote:|-{2,} ?Original Message ?-{2,})/)[0]
    .split(/\r?\n/)
    .filter((l) => !l.startsWith('>'))
    .join('\n')
    .trim();

const plugin: ChannelPlugin = {
  kind: 'channel',
  type: 'email',
  description: 'An email address: inbound by SMTP or signed webhook, replies threaded through the SMTP relay',
  optionsSchema: {
    type: 'object',
    required: ['address'],
    properties: {
      address: { type: 'string', pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$', maxLength: 320, description: 'The address people write to' },
      fromName: { type: 'string', maxLength: 100 },
    },
  },
  secretsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: { webhookSecret: { type: 'string', minLength: 16, maxLength: 500 } },
  },
  secrets: [{ name: 'EMAIL_SMTP_RELAY_URL', description: 'SMTP relay for replies, e.g. smtp://user:pass@relay:587', required: false }],
  capabilities: ['inbound', 'outbound', 'verify'],
  identityChannel: 'email',
  receive(request, ctx) {
    if (request.method !== 'POST' || !ctx.secrets.webhookSecret) return { kind: 'unsupported' };
    if (!validHmacSha256(request.headers['x-channel-signature'], ctx.secrets.webhookSecret, request.rawBody))
      return { kind: 'reject', message: 'Invalid X-Channel-Signature' };
    return { kind: 'accept', payload: request.rawBody.toString('utf8') };
  },
  parse(payload, ctx) {
    let mail: InboundEmail;
    try {
      mail = (typeof payload === 'string' ? JSON.parse(payload) : payload) as InboundEmail;
    } catch {
      return [];
    }
    const from = typeof mail?.from === 'string' ? ctx.identifiers.email(mail.from) : null;
    const text = stripQuoted(String(mail?.text ?? ''));
    if (!from || !mail.messageId || !text) return [];
    const message: InboundMessage = {
      externalId: bracket(String(mail.messageId)),
      from,
      fromName: mail.fromName ?? null,
      text,
      subject: mail.subject ?? null,
      replyTo: [mail.inReplyTo, ...(mail.references ?? [])].filter((r): r is string => typeof r === 'string' && !!r).map(bracket),
    };
    return [message];
  },
  async send(message, ctx) {
    const address = String(ctx.config.address);
    const domain = address.split('@')[1] ?? 'localhost';
    // The same Message-ID on every attempt of one reply: a relay or reader can tell a retried send.
    const messageId = `<${message.id ?? ctx.newId()}@${domain}>`;
    const subject = message.inReplyTo?.subject ?? '';
    const fromName = typeof ctx.config.fromName === 'string' ? ctx.config.fromName : '';
    await ctx.mail({
      from: fromName ? `"${fromName.replace(/"/g, '')}" <${address}>` : address,
      to: message.to,
      subject: subject && !/^re:/i.test(subject) ? `Re: ${subject}` : subject || 'Re:',
      text: message.text,
      messageId,
      ...(message.inReplyTo
        ? { inReplyTo: message.inReplyTo.externalId, references: [...(message.inReplyTo.references ?? []), message.inReplyTo.externalId] }
        : {}),
    });
    return { externalId: messageId };
  },
};

export default plugin;
