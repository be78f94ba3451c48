import type { JobMetadata } from '../../core/ports/job-queue';

/** AMQP headers carrying a job's metadata; retries and dead letters copy them from the original message. */
const HEADERS: Record<keyof JobMetadata, string> = { requestId: 'x-request-id', traceparent: 'traceparent' };

export function metadataHeaders(metadata: JobMetadata | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!metadata) return out;
  for (const key of Object.keys(HEADERS) as (keyof JobMetadata)[]) {
    const value = metadata[key];
    if (typeof value === 'string' && value) out[HEADERS[key]] = value;
  }
  return out;
}

export function metadataOf(headers: Record<string, unknown> | undefined): JobMetadata | undefined {
  if (!headers) return undefined;
  const out: JobMetadata = {};
  for (const key of Object.keys(HEADERS) as (keyof JobMetadata)[]) {
    const value: unknown = headers[HEADERS[key]];
    if (typeof value === 'string' && value) out[key] = value;
    else if (Buffer.isBuffer(value) && value.length) out[key] = value.toString('utf8');
  }
  return Object.keys(out).length ? out : undefined;
}
