/**
 * Whether a failure means the database could not be reached at all (docs/contracts.md "Delivery guarantees": the
 * database unreachable → 503 DATABASE_UNAVAILABLE with Retry-After, never 500), as opposed to a statement the
 * database refused (a constraint, a syntax error, a serialization failure) or a pool that is merely full.
 */

/** Socket-level failures of node's net module, as node-postgres passes them on (on the error or its `errors`). */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/**
 * SQLSTATEs of a server that is going or not there yet: 57P01 admin_shutdown (pg_terminate_backend, a fast
 * shutdown), 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up, shutting down, in recovery). The whole
 * class 08 (connection exception) is matched apart.
 */
const SERVER_GONE_CODES = new Set(['57P01', '57P02', '57P03']);

/**
 * Messages node-postgres (and the pool under knex) fail with when the connection broke; knex prefixes a query's
 * error message with its SQL (`select 1 - Connection terminated unexpectedly`), and tarn copies the last failed
 * connect's message into the timeout of a wait for a connection, so they are matched inside the message.
 */
const BROKEN_CONNECTION_MESSAGES = [
  'Connection terminated unexpectedly',
  'Connection terminated due to connection timeout',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
];
/** node-postgres's own connect timeout (connectionTimeoutMillis), matched whole: the words alone say too little. */
const CONNECT_TIMEOUT_MESSAGE = 'timeout expired';
/** `connect ECONNREFUSED 127.0.0.1:5432`, `getaddrinfo ENOTFOUND db`, `read ECONNRESET` (as tarn copies them). */
const SOCKET_MESSAGE =
  /\b(?:connect|read|write|getaddrinfo) (ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN)\b/;

/** How deep `cause` chains and AggregateErrors are followed (they are short; this only guards against cycles). */
const MAX_DEPTH = 8;

export function isDatabaseUnavailable(error: unknown): boolean {
  return unavailable(error, 0);
}

function unavailable(error: unknown, depth: number): boolean {
  if (depth > MAX_DEPTH || error === null || typeof error !== 'object') return false;
  const e = error as { code?: unknown; message?: unknown; name?: unknown; errors?: unknown; cause?: unknown };
  if (typeof e.code === 'string') {
    if (SOCKET_CODES.has(e.code) || SERVER_GONE_CODES.has(e.code)) return true;
    // SQLSTATE class 08: connection_exception, connection_failure, sqlclient_unable_to_establish_sqlconnection...
    if (/^08[0-9A-Z]{3}$/.test(e.code)) return true;
  }
  if (typeof e.message === 'string') {
    const message = e.message;
    if (message === CONNECT_TIMEOUT_MESSAGE || message === 'Connection terminated') return true;
    if (BROKEN_CONNECTION_MESSAGES.some((m) => message.includes(m))) return true;
    if (SOCKET_MESSAGE.test(message)) return true;
  }
  // A connect to a name with several addresses (localhost: ::1 and 127.0.0.1) fails with an AggregateError.
  if (Array.isArray(e.errors) && e.errors.some((inner) => unavailable(inner, depth + 1))) return true;
  // knex's KnexTimeoutError (no connection within acquireConnectionTimeout) is unavailability only when its
  // cause says a connect failed meanwhile; a wait on a full pool of a reachable database is "busy" (see
  // error-mapper.ts), and its cause is tarn's "operation timed out for an unknown reason".
  return e.cause !== undefined && e.cause !== error && unavailable(e.cause, depth + 1);
}
