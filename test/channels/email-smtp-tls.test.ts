/**
 * STARTTLS on the inbound SMTP listener (EMAIL_SMTP_TLS_KEY_FILE / _CERT_FILE, EMAIL_SMTP_REQUIRE_TLS): a real
 * SMTP conversation on loopback with nodemailer, against a certificate made here with openssl. With TLS required, a
 * client that does not upgrade is refused at MAIL FROM with 530 and nothing is handed over; a client that upgrades
 * (verifying the certificate) delivers. The configuration refuses a key without a certificate and REQUIRE_TLS
 * without either.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import nodemailer from 'nodemailer';

import { ConfigError } from '../../adapters/config/load-config';
import { type SmtpListener, startSmtpListener } from '../../adapters/smtp/smtp-listener';
import { loadConfig } from '../../app/configuration';
import type { InboundEmail } from '../../core/channels/email-inbound';

let dir: string;
let key: Buffer;
let cert: Buffer;
let listener: SmtpListener;
const accepted: { channelIds: string[]; mail: InboundEmail }[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ap-smtp-tls-'));
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost'],
      ...['-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
    ],
    { stdio: 'ignore' },
  );
  key = readFileSync(join(dir, 'key.pem'));
  cert = readFileSync(join(dir, 'cert.pem'));
  listener = await startSmtpListener({
    port: 0,
    host: '127.0.0.1',
    maxBytes: 64 * 1024,
    timeoutMs: 10_000,
    route: async (recipient) => (recipient === 'support@acme.test' ? 'channel-1' : null),
    accept: async (channelIds, mail) => {
      accepted.push({ channelIds, mail });
    },
    log: () => undefined,
    tls: { key, cert, required: true },
  });
});
afterAll(async () => {
  await listener?.close();
  rmSync(dir, { recursive: true, force: true });
});

const message = (subject: string) => ({ from: 'ada@example.com', to: 'support@acme.test', subject, text: 'Hello there' });

it('refuses mail before STARTTLS with 530 and hands nothing over', async () => {
  const plain = nodemailer.createTransport({ host: '127.0.0.1', port: listener.address.port, secure: false, ignoreTLS: true });
  await expect(plain.sendMail(message('plain'))).rejects.toMatchObject({ responseCode: 530 });
  plain.close();
  expect(accepted).toEqual([]);
});

it('takes mail over STARTTLS with a verified certificate', async () => {
  const secure = nodemailer.createTransport({
    host: '127.0.0.1',
    port: listener.address.port,
    secure: false,
    requireTLS: true,
    tls: { ca: [cert], servername: 'localhost' },
  });
  await secure.sendMail(message('over tls'));
  secure.close();
  expect(accepted).toHaveLength(1);
  expect(accepted[0]).toMatchObject({ channelIds: ['channel-1'], mail: { from: 'ada@example.com', subject: 'over tls' } });
});

it('needs the key and the certificate together, and both for REQUIRE_TLS', () => {
  const problems = (settings: Record<string, string>) => {
    try {
      loadConfig('start', { DATA_DIR: dir, ...settings });
      return [];
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      return (e as ConfigError).problems.map((p) => p.split(':')[0]);
    }
  };
  expect(problems({ EMAIL_SMTP_TLS_KEY_FILE: join(dir, 'key.pem') })).toEqual(['EMAIL_SMTP_TLS_CERT_FILE']);
  expect(problems({ EMAIL_SMTP_REQUIRE_TLS: 'true' })).toEqual(expect.arrayContaining(['EMAIL_SMTP_TLS_KEY_FILE']));
  expect(problems({ EMAIL_SMTP_TLS_KEY_FILE: join(dir, 'key.pem'), EMAIL_SMTP_TLS_CERT_FILE: join(dir, 'cert.pem') })).toEqual([]);
});
