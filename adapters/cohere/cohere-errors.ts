import { DomainError, PROVIDER_LIMIT_MESSAGE } from '../../core/shared/errors';
import { retryAfterSeconds, withCause } from '../shared/provider-errors';

/** The user-facing message for provider credit or token limits (spec section 7, provider_limit_reached). */

/** 429s that are a spent allowance rather than a burst: the trial key's monthly call cap, billing caps. */
const ALLOWANCE_SPENT = /per month|\/\s*month|monthly|billing|payment|quota|credit/i;
/** 400/422s about input size: "too many tokens: total number of tokens in the prompt cannot exceed...". */
const TOKEN_LIMIT =
  /too many tokens|context length|context window|prompt is too long|exceeds? the (maximum|token limit)|max(imum)? tokens/i;

/** What the SDK's CohereError carries, read structurally. */
interface CohereErrorShape {
  statusCode?: number;
  body?: unknown;
  message?: string;
  rawResponse?: { headers?: { get(name: string): string | null } };
}

function providerText(e: CohereErrorShape): string {
  const body = e.body as { message?: unknown } | string | undefined;
  const fromBody = typeof body === 'string' ? body : typeof body?.message === 'string' ? body.message : '';
  return `${e.message ?? ''} ${fromBody}`;
}

function retryAfter(e: CohereErrorShape): number | undefined {
  const headers = e.rawResponse?.headers;
  return retryAfterSeconds(typeof headers?.get === 'function' ? headers.get('retry-after') : null);
}

/**
 * The one place Cohere failures become domain errors: HTTP 402 (billing limit), a 429 for a spent allowance
 * (trial keys are capped per month) and "too many tokens" become PROVIDER_LIMIT_REACHED with the user-facing
 * message; any other 429 is RATE_LIMITED; everything else (5xx, other 4xx, timeouts, network failures,
 * unreadable responses, errors reported inside a stream) is UPSTREAM_FAILED.
 */
export function mapCohereError(error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  const e: CohereErrorShape = error && typeof error === 'object' ? (error as CohereErrorShape) : {};
  const status = typeof e.statusCode === 'number' ? e.statusCode : undefined;
  const text = providerText(e);
  const details = { provider: 'cohere', status };

  if (status === 402 || (status === 429 && ALLOWANCE_SPENT.test(text))) {
    return withCause(new DomainError('PROVIDER_LIMIT_REACHED', PROVIDER_LIMIT_MESSAGE, { ...details, reason: 'credit' }), error);
  }
  if ((status === undefined || status === 400 || status === 413 || status === 422) && TOKEN_LIMIT.test(text)) {
    return withCause(new DomainError('PROVIDER_LIMIT_REACHED', PROVIDER_LIMIT_MESSAGE, { ...details, reason: 'tokens' }), error);
  }
  if (status === 429) {
    return withCause(
      new DomainError('RATE_LIMITED', 'The model provider is rate limiting requests; try again shortly.', {
        ...details,
        retryAfterSeconds: retryAfter(e),
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
