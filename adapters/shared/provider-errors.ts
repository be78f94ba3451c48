import type { DomainError } from '../../core/shared/errors';

/** Keeps the provider's original error for logs while the domain error travels. */
export function withCause(error: DomainError, cause: unknown): DomainError {
  error.cause = cause;
  return error;
}

/** Seconds from a Retry-After header value, when it is a plain non-negative number. */
export function retryAfterSeconds(value: string | null | undefined): number | undefined {
  const seconds = value == null ? NaN : Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
}
