import { DomainError, PROVIDER_LIMIT_MESSAGE } from '../../core/shared/errors';
import { retryAfterSeconds, withCause } from '../shared/provider-errors';

/** The user-facing message for provider credit or token limits (spec section 7, provider_limit_reached). */

const QUOTA_CODES = new Set([
  'insufficient_quota',
  'billing_hard_limit_reached',
  'billing_not_active',
  'insufficient_balance',
  'payment_required',
]);
const TOKEN_LIMIT_CODES = new Set(['context_length_exceeded', 'string_above_max_length', 'tokens_exceeded', 'max_tokens_exceeded']);
const TOKEN_LIMIT_MESSAGE =
  /maximum context length|context[ _-]length|context window|too many tokens|reduce the length of the messages|prompt is too long/i;

/** What the SDK's APIError carries, read structurally so a client from another copy of the SDK maps the same way. */
interface ProviderErrorShape {
  status?: number;
  code?: string | null;
  type?: string;
  message?: string;
  headers?: { get(name: string): string | null };
  error?: { code?: unknown; type?: unknown; message?: unknown };
}

function shape(error: unknown): ProviderErrorShape {
  return error && typeof error === 'object' ? (error as ProviderErrorShape) : {};
}

const retryAfter = (headers: ProviderErrorShape['headers']) =>
  retryAfterSeconds(typeof headers?.get === 'function' ? headers.get('retry-after') : null);

/**
 * The one place OpenAI (and OpenAI-compatible) failures become domain errors:
 * credit or quota exhausted (HTTP 402, `insufficient_quota`...) and context or token limits become
 * PROVIDER_LIMIT_REACHED with the user-facing message; any other 429 is RATE_LIMITED; everything else
 * (5xx, other 4xx, network failures, unreadable responses, errors inside a stream) is UPSTREAM_FAILED.
 * The original error is kept as `cause` for logs; details carry no provider text.
 */
export function mapOpenAiError(error: unknown, provider = 'openai'): DomainError {
  if (error instanceof DomainError) return error;
  const e = shape(error);
  const status = typeof e.status === 'number' ? e.status : undefined;
  const code = String(e.code ?? e.error?.code ?? e.type ?? e.error?.type ?? '') || undefined;
  const text = `${e.message ?? ''} ${typeof e.error?.message === 'string' ? e.error.message : ''}`;
  const details = { provider, status, providerCode: code };

  if (status === 402 || (code && QUOTA_CODES.has(code))) {
    return withCause(new DomainError('PROVIDER_LIMIT_REACHED', PROVIDER_LIMIT_MESSAGE, { ...details, reason: 'credit' }), error);
  }
  if (
    status === 413 ||
    (code && TOKEN_LIMIT_CODES.has(code)) ||
    ((status === 400 || status === undefined) && TOKEN_LIMIT_MESSAGE.test(text))
  ) {
    return withCause(new DomainError('PROVIDER_LIMIT_REACHED', PROVIDER_LIMIT_MESSAGE, { ...details, reason: 'tokens' }), error);
  }
  if (status === 429) {
    return withCause(
      new DomainError('RATE_LIMITED', 'The model provider is rate limiting requests; try again shortly.', {
        ...details,
        retryAfterSeconds: retryAfter(e.headers),
      }),
      error,
    );
  }
  const message = status
    ? `The model provider failed (HTTP ${status}).`
    : 'The model provider could not be reached or sent an unreadable response.';
  return withCause(new DomainError('UPSTREAM_FAILED', message, details), error);
}

export { PROVIDER_LIMIT_MESSAGE };
