import { DomainError } from '../shared/errors';

export const WEBHOOK_URL_MAX = 2048;

/**
 * A webhook URL as accepted on the request that starts a job: absolute https, no embedded credentials, at
 * most 2048 characters (400 Validation Error otherwise). Internal addresses are refused when it is called,
 * by the SSRF-guarded fetcher, and the delivery is then recorded as failed.
 */
export function checkWebhookUrl(value: unknown, field = 'webhookUrl'): string {
  const refuse = (why: string) => new DomainError('VALIDATION', `${field} ${why}`, [{ field, message: why }]);
  if (typeof value !== 'string' || !value.trim()) throw refuse('must be an https URL');
  if (value.length > WEBHOOK_URL_MAX) throw refuse(`must be at most ${WEBHOOK_URL_MAX} characters`);
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw refuse('must be an absolute https URL');
  }
  if (url.protocol !== 'https:') throw refuse('must use https');
  if (url.username || url.password) throw refuse('must not embed credentials');
  return url.toString();
}

/** An optional webhookUrl: undefined, null or empty means none. */
export const optionalWebhookUrl = (value: unknown, field = 'webhookUrl'): string | null =>
  value === undefined || value === null || value === '' ? null : checkWebhookUrl(value, field);
