/**
 * The OpenAI-compatible operations (`/v1/chat/completions`, `/v1/models`) answer errors in OpenAI's shape,
 * `{error: {message, type, param, code}}`, so that OpenAI's official clients show the reason instead of
 * `404 "Not Found"`. Every other path keeps the platform's `{error, message, code}`.
 */
export function isOpenAiCompatiblePath(path: string): boolean {
  return path === '/v1/chat/completions' || path === '/v1/models' || path.startsWith('/v1/models/');
}

export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

function typeFor(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 402) return 'insufficient_quota';
  if (status === 403) return 'permission_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/** The platform's error body (code, first invalid field) in OpenAI's shape; codes in OpenAI's lower case. */
export function toOpenAiError(status: number, body: { message: string; code?: string; details?: unknown }): OpenAiErrorBody {
  const first = Array.isArray(body.details) ? (body.details[0] as { field?: unknown } | undefined) : undefined;
  const field = typeof first?.field === 'string' ? first.field.replace(/^(body|query|params)\./, '') : null;
  return {
    error: {
      message: body.message,
      type: typeFor(status),
      param: field || null,
      code: body.code ? body.code.toLowerCase() : null,
    },
  };
}
