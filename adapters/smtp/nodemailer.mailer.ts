import nodemailer, { type Transporter } from 'nodemailer';

import type { ChannelMailer } from '../../core/channels/channel-plugin';

/**
 * Email replies through an SMTP relay (nodemailer). The transport is created on first use from the relay URL
 * read then (smtp://user:pass@host:port or smtps://...); without one, sending fails with a clear error. A send is
 * bounded in time (connect, greeting, idle socket), so a hanging relay fails the attempt and it is retried; a
 * timeout the URL sets wins.
 */
export function nodemailerMailer(relayUrl: () => string | undefined): ChannelMailer {
  let transport: Transporter | null = null;
  let transportUrl: string | undefined;
  return async (mail) => {
    const url = relayUrl();
    if (!url) throw Object.assign(new Error('EMAIL_SMTP_RELAY_URL is not set: email replies cannot be sent'), { code: 'VALIDATION' });
    if (!transport || transportUrl !== url) {
      transport = nodemailer.createTransport({ url, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 });
      transportUrl = url;
    }
    await transport.sendMail({
      from: mail.from,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      messageId: mail.messageId,
      ...(mail.inReplyTo ? { inReplyTo: mail.inReplyTo, references: mail.references } : {}),
    });
  };
}
