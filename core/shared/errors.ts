/**
 * Domain errors carry a stable code. Only the HTTP edge maps codes to status and body,
 * so the core never knows about HTTP.
 */
export type ErrorCode =
  | 'VALIDATION'
  | 'MODEL_NOT_AVAILABLE'
  | 'AUTHENTICATION_FAILED'
  | 'MISSING_AUTHORIZATION'
  | 'FORBIDDEN'
  | 'INSUFFICIENT_SCOPE'
  | 'ACCOUNT_SUSPENDED'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'PLAN_LIMIT'
  | 'SEATS_EXHAUSTED'
  | 'INSUFFICIENT_CREDITS'
  | 'RATE_LIMITED'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'NO_MODEL_FOR_FILE_TYPE'
  | 'PAYLOAD_TOO_LARGE'
  | 'NOT_CONFIGURED'
  | 'UPSTREAM_FAILED'
  | 'KNOWLEDGE_BASE_NOT_READY'
  | 'INVALID_KNOWLEDGE_BASE_IDS'
  | 'UNSUPPORTED_URL'
  | 'TURNSTILE_FAILED'
  | 'TOO_MANY_SOURCES'
  | 'STORE_THROTTLED'
  | 'PROVIDER_LIMIT_REACHED'
  | 'UNKNOWN_PROMPT_TYPE'
  | 'INSTANCED_TYPE_NOT_ADDRESSED'
  | 'INSTANCE_NOT_FOUND'
  | 'INVALID_VARIABLE_NAMESPACE'
  | 'DUPLICATE_SECTION'
  | 'INVALID_STATE'
  | 'ACCOUNT_EXISTS'
  | 'ADDRESS_TAKEN'
  | 'ORIGIN_NOT_ALLOWED'
  | 'INTERNAL';

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const isDomainError = (e: unknown): e is DomainError => e instanceof DomainError;

export const notFound = (what: string) => new DomainError('NOT_FOUND', `${what} not found`);
export const forbidden = (message = 'You do not have permission to perform this action') => new DomainError('FORBIDDEN', message);
export const validation = (message: string, details?: unknown) => new DomainError('VALIDATION', message, details);
export const conflict = (message: string) => new DomainError('CONFLICT', message);

/** User-facing text of PROVIDER_LIMIT_REACHED (spec 7): the assistant is temporarily unavailable. */
export const PROVIDER_LIMIT_MESSAGE = 'The assistant is temporarily unavailable. Please try again later.';
