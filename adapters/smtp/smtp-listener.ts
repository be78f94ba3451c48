/**
 * The platform's inbound SMTP listener (smtp-server, messages parsed with mailparser). Recipients are checked at
 * RCPT TO against the routing the caller gives (unknown → 550, so nothing is accepted for them); a message over
 * the size limit is refused (552 at MAIL FROM when the client declares SIZE, else after DATA) without being
 * buffered past the limit; parsing has a time limit (451, the sender retries later). An accepted message is
 * handed over as the same parsed email the signed webhook carries.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Transform } from 'node:stream';

import { type AddressObject, simpleParser } from 'mailparser';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';

import type { InboundEmail } from '../../core/channels/email-inbound';

export interface SmtpListenerOptions {
  port: number;
  host: string;
  /** Largest message accepted, in bytes. */
  maxBytes: number;
  /** Longest a message may take to arrive and be parsed. */
  timeoutMs: number;
  /** The channel id serving a recipient address, or null to refuse it. */
  route(recipient: string): Promise<string | null>;
  /** Queues an accepted message for these channels. */
  accept(channelIds: string[], mail: InboundEmail): Promise<void>;
  log(level: 'info' | 'warn', message: string, extra?: unknown): void;
  /** STARTTLS with this key and certificate (PEM); `required`: no MAIL FROM before it (530). */
  tls?: { key: Buffer; cert: Buffer; required: boolean };
}

export interface SmtpListener {
  address: AddressInfo;
  close(): Promise<void>;
}

const smtpError = (code: number, message: string) => Object.assign(new Error(message), { responseCode: code });

function firstAddress(header: AddressObject | AddressObject[] | undefined) {
  const list = Array.isArray(header) ? header : header ? [header] : [];
  return list.flatMap((h) => h.value).find((a) => a.address);
}

/** Passes at most `limit` bytes on and drops the rest, so an oversized message is never held whole. */
function capped(limit: number) {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const room = limit - seen;
      seen += chunk.length;
      done(null, room > 0 ? chunk.subarray(0, room) : undefined);
    },
  });
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(smtpError(451, 'Message took too long to process, try again later')), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export async function startSmtpListener(options: SmtpListenerOptions): Promise<SmtpListener> {
  // The channels each open session's recipients reached (by session id).
  const routed = new Map<string, string[]>();
  const server = new SMTPServer({
    name: 'agent-platform',
    banner: 'Agent Platform inbound mail',
    size: options.maxBytes,
    rejectOversized: true,
    authOptional: true,
    // No AUTH: it only receives, as an MX does. STARTTLS when a key and certificate are configured; else plain
    // SMTP on a trusted network or behind an MX that terminates TLS.
    disabledCommands: options.tls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
    ...(options.tls ? { key: options.tls.key, cert: options.tls.cert } : {}),
    socketTimeout: options.timeoutMs,
    logger: false,
    onMailFrom(_address, session, callback) {
      if (options.tls?.required && !session.secure) return callback(smtpError(530, 'Must issue a STARTTLS command first'));
      routed.set(session.id, []);
      callback();
    },
    onRcptTo(address, session, callback) {
      options
        .route(address.address)
        .then((channelId) => {
          if (!channelId) return callback(smtpError(550, `Mailbox unavailable: ${address.address}`));
          routed.set(session.id, [...(routed.get(session.id) ?? []), channelId]);
          callback();
        })
        .catch((e) => {
          options.log('warn', 'smtp: recipient lookup failed', e);
          callback(smtpError(451, 'Temporary failure, try again later'));
        });
    },
    onData(stream, session, callback) {
      const channelIds = routed.get(session.id) ?? [];
      const ended = new Promise<void>((resolve) => stream.once('end', resolve));
      const parsed = withTimeout(simpleParser(stream.pipe(capped(options.maxBytes))), options.timeoutMs);
      void (async () => {
        try {
          const mail = await parsed;
          await ended;
          // rejectOversized answers 552 whatever we say; nothing of it is queued.
          if (stream.sizeExceeded) return callback(smtpError(552, 'Message exceeds the maximum size'));
          await options.accept(channelIds, toInboundEmail(mail, session));
          callback();
        } catch (e) {
          stream.resume();
          await ended;
          if ((e as { responseCode?: number }).responseCode) return callback(e as Error);
          options.log('warn', 'smtp: message could not be accepted', e);
          callback(smtpError(451, 'Temporary failure, try again later'));
        }
      })();
    },
    onClose(session) {
      routed.delete(session.id);
    },
  });
  server.on('error', (e) => options.log('warn', 'smtp listener error', e));
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.server.off('error', reject);
      resolve();
    });
  });
  const address = server.server.address() as AddressInfo;
  options.log('info', `smtp listener on ${address.address}:${address.port}`);
  return { address, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

type Parsed = Awaited<ReturnType<typeof simpleParser>>;

function toInboundEmail(mail: Parsed, session: SMTPServerSession): InboundEmail {
  const sender = firstAddress(mail.from);
  const envelopeFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
  const references = typeof mail.references === 'string' ? [mail.references] : (mail.references ?? []);
  return {
    // A message without an id still gets one: redeliveries of it cannot be told apart anyway.
    messageId: mail.messageId ?? `<${randomUUID()}@smtp.agent-platform>`,
    from: sender?.address ?? envelopeFrom,
    fromName: sender?.name || null,
    subject: mail.subject ?? null,
    text: mail.text ?? '',
    inReplyTo: mail.inReplyTo ?? null,
    references,
  };
}
