import { type ErrorCode, isDomainError } from '../../core/shared/errors';
import { isDatabaseUnavailable } from '../postgres/database-errors';

export interface ErrorBody {
  error: string;
  message: string;
  code?: string;
  details?: unknown;
}

/** The only place where domain error codes become HTTP statuses and the spec's error strings (section 7). */
const table: Record<ErrorCode, [number, string]> = {
  VALIDATION: [400, 'Validation Error'],
  MODEL_NOT_AVAILABLE: [400, 'Validation Error'],
  AUTHENTICATION_FAILED: [401, 'Authentication Failed'],
  MISSING_AUTHORIZATION: [401, 'Missing or invalid authorization header'],
  FORBIDDEN: [403, 'Forbidden'],
  INSUFFICIENT_SCOPE: [403, 'insufficient_scope'],
  ACCOUNT_SUSPENDED: [403, 'Account suspended'],
  NOT_FOUND: [404, 'Not Found'],
  CONFLICT: [409, 'Conflict'],
  PLAN_LIMIT: [403, 'plan_limit'],
  SEATS_EXHAUSTED: [403, 'seat_limit_reached'],
  INSUFFICIENT_CREDITS: [402, 'insufficient_credits'],
  RATE_LIMITED: [429, 'rate limited'],
  UNSUPPORTED_MEDIA_TYPE: [415, 'Unsupported Media Type'],
  NO_MODEL_FOR_FILE_TYPE: [422, 'Unprocessable Entity'],
  PAYLOAD_TOO_LARGE: [413, 'Payload Too Large'],
  NOT_CONFIGURED: [404, 'Not Found'],
  UPSTREAM_FAILED: [502, 'Bad Gateway'],
  KNOWLEDGE_BASE_NOT_READY: [400, 'Knowledge base not ready'],
  INVALID_KNOWLEDGE_BASE_IDS: [400, 'invalid_knowledge_base_ids'],
  UNSUPPORTED_URL: [400, 'unsupported_url'],
  TURNSTILE_FAILED: [400, 'turnstile_failed'],
  TOO_MANY_SOURCES: [400, 'too_many_sources'],
  STORE_THROTTLED: [503, 'store_throttled'],
  PROVIDER_LIMIT_REACHED: [503, 'provider_limit_reached'],
  UNKNOWN_PROMPT_TYPE: [400, 'UNKNOWN_PROMPT_TYPE'],
  INSTANCED_TYPE_NOT_ADDRESSED: [400, 'INSTANCED_TYPE_NOT_ADDRESSED'],
  INSTANCE_NOT_FOUND: [400, 'INSTANCE_NOT_FOUND'],
  INVALID_VARIABLE_NAMESPACE: [400, 'INVALID_VARIABLE_NAMESPACE'],
  DUPLICATE_SECTION: [400, 'DUPLICATE_SECTION'],
  INVALID_STATE: [409, 'Conflict'],
  ACCOUNT_EXISTS: [409, 'account_exists'],
  ADDRESS_TAKEN: [409, 'address_taken'],
  ORIGIN_NOT_ALLOWED: [403, 'origin_not_allowed'],
  INTERNAL: [500, 'Internal Server Error'],
};

/** How long a client is asked to wait (Retry-After) before retrying when the database is away or busy. */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

export function toHttpError(e: unknown): { status: number; body: ErrorBody; retryAfterSeconds?: number } {
  if (isDomainError(e)) {
    const [status, error] = table[e.code] ?? [500, 'Internal Server Error'];
    return { status, body: { error, message: e.message, code: e.code, ...(e.details !== undefined ? { details: e.details } : {}) } };
  }
  const status = (e as { status?: number; statusCode?: number })?.status ?? (e as { statusCode?: number })?.statusCode;
  if (status === 400 && (e as { type?: string }).type === 'entity.parse.failed') {
    return { status: 400, body: { error: 'Validation Error', message: 'Request body is not valid JSON', code: 'VALIDATION' } };
  }
  // A unique constraint the use case did not pre-check (two concurrent creates, a duplicate name): a conflict.
  if ((e as { code?: unknown })?.code === '23505') {
    return {
      status: 409,
      body: {
        error: 'Conflict',
        message: 'This conflicts with an existing resource (a unique name or key is already taken)',
        code: 'CONFLICT',
      },
    };
  }
  // Busy first: the embedded store's session queue answers 57P03 (cannot_connect_now), which from a real server
  // means "starting up / shutting down" and counts as unavailable below.
  if (isDatabaseBusy(e)) {
    return {
      status: 503,
      body: { error: 'Service Unavailable', message: 'The database is busy; try again shortly', code: 'DATABASE_BUSY' },
      retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS,
    };
  }
  // The database cannot be reached (refused, reset, terminated, shut down): docs/contracts.md "Delivery guarantees".
  if (isDatabaseUnavailable(e)) {
    return {
      status: 503,
      body: { error: 'Service Unavailable', message: 'The database is unavailable; try again shortly', code: 'DATABASE_UNAVAILABLE' },
      retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS,
    };
  }
  if (status === 413)
    return { status: 413, body: { error: 'Payload Too Large', message: 'Request body is too large', code: 'PAYLOAD_TOO_LARGE' } };
  // Router and parser refusals of malformed requests (e.g. a path parameter that is not valid percent-encoded
  // UTF-8): client errors, not server errors. Found by the contract fuzzer.
  if (e instanceof URIError || (status === 400 && (e as { expose?: boolean }).expose !== false)) {
    return {
      status: 400,
      body: { error: 'Validation Error', message: 'The request is malformed (e.g. bad percent-encoding in the path)', code: 'VALIDATION' },
    };
  }
  return { status: 500, body: { error: 'Internal Server Error', message: 'An unexpected error occurred', code: 'INTERNAL' } };
}

/**
 * Every connection held past the wait bound while the database itself answers: the platform is overloaded, not
 * broken. That is the embedded database's session queue (57P03 with its "database busy" message, see
 * embedded/pglite-worker.mjs), a server out of connection slots (53300), and knex's pool timeout
 * (KnexTimeoutError).
 *
 * A pool timeout is ambiguous: a full pool on a reachable database and a pool that cannot open a connection
 * both end in it. Decided by what happened during the wait: when a connect of the pool failed meanwhile, the
 * timeout's `cause` is that failure (database.ts sets it; tarn also copies its message), e.g. ECONNREFUSED or
 * node-postgres's `timeout expired` (connectionTimeoutMillis, which database.ts sets below the wait bound so
 * that a server that does not answer fails the connect before the wait ends): isDatabaseUnavailable says so, and
 * the answer is DATABASE_UNAVAILABLE. With no failed connect (tarn's "operation timed out for an unknown
 * reason") every connection was busy on a database that answers: DATABASE_BUSY. A connect that is merely slow
 * (an overloaded server accepting, under the connect timeout) still reads as busy, which it is.
 */
function isDatabaseBusy(e: unknown): boolean {
  const err = e as { name?: unknown; code?: unknown; message?: unknown } | null;
  if (err?.code === '57P03') return typeof err.message === 'string' && err.message.includes('database busy');
  if (err?.name === 'KnexTimeoutError') return !isDatabaseUnavailable(e);
  return err?.code === '53300';
}

export const statusFor = (code: ErrorCode) => table[code][0];
