/**
 * Bot-check (spec 4.13): when a secret is configured, `turnstileToken` is required and verified server-side
 * against the configured verification endpoint (Cloudflare Turnstile's siteverify shape: form POST of secret
 * and response, JSON `{success}`). Missing, rejected or unverifiable: 400 turnstile_failed.
 */
import type { OutboundFetcher } from '../ports/outbound-fetcher';
import { DomainError } from '../shared/errors';

export interface TurnstileSettings {
  secret: string;
  verifyUrl: string;
}

export async function verifyTurnstile(fetcher: OutboundFetcher, settings: TurnstileSettings | null, token: string | undefined) {
  if (!settings) return;
  if (!token) throw new DomainError('TURNSTILE_FAILED', 'A bot-check token (turnstileToken) is required');
  let ok: boolean;
  try {
    const res = await fetcher.fetch({
      url: settings.verifyUrl,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ secret: settings.secret, response: token }).toString(),
      timeoutMs: 5000,
      maxBytes: 65536,
      maxRedirects: 0,
    });
    ok = res.status === 200 && (JSON.parse(res.body.toString('utf8')) as { success?: unknown }).success === true;
  } catch {
    ok = false;
  }
  if (!ok) throw new DomainError('TURNSTILE_FAILED', 'The bot-check token was not accepted');
}
