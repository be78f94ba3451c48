/**
 * The inbound SMTP listener of email channels (EMAIL_SMTP_PORT; off when unset): runs with the api (and in
 * `start`), routes recipients to email channels and queues accepted mail for the channel workers.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';

import type { Container } from 'inversify';

import { startSmtpListener } from '../adapters/smtp/smtp-listener';
import { acceptEmail, emailChannelFor } from '../core/channels/email-inbound';
import { INFRASTRUCTURE, SERVICES } from './container';
import type { Infrastructure } from './infrastructure';
import type { Services } from './services';

export async function startEmailListener(container: Container): Promise<{ address: AddressInfo; close(): Promise<void> } | null> {
  const infra = container.get<Infrastructure>(INFRASTRUCTURE);
  const settings = infra.config.settings;
  if (typeof settings.EMAIL_SMTP_PORT !== 'number') return null;
  const channels = container.get<Services>(SERVICES).channels;
  const domain = typeof settings.EMAIL_SMTP_DOMAIN === 'string' ? settings.EMAIL_SMTP_DOMAIN : undefined;
  return startSmtpListener({
    port: settings.EMAIL_SMTP_PORT,
    host: String(settings.EMAIL_SMTP_HOST ?? '127.0.0.1'),
    maxBytes: Number(settings.EMAIL_SMTP_MAX_BYTES ?? 10_485_760),
    timeoutMs: Number(settings.EMAIL_SMTP_TIMEOUT_MS ?? 30_000),
    route: async (recipient) => (await emailChannelFor(channels, recipient, domain))?.id ?? null,
    accept: (channelIds, mail) => acceptEmail(channels, channelIds, mail),
    log: (level, message, extra) => infra.log(level, message, extra),
    tls: tlsOf(settings),
  });
}

/** EMAIL_SMTP_TLS_KEY_FILE and EMAIL_SMTP_TLS_CERT_FILE go together (the configuration schema checks it). */
function tlsOf(settings: Record<string, unknown>) {
  const key = settings.EMAIL_SMTP_TLS_KEY_FILE;
  const cert = settings.EMAIL_SMTP_TLS_CERT_FILE;
  if (typeof key !== 'string' || typeof cert !== 'string') return undefined;
  return { key: readFileSync(key), cert: readFileSync(cert), required: settings.EMAIL_SMTP_REQUIRE_TLS === true };
}
