import type { PlatformErrorBody, Session } from './types';

/** A non-2xx answer, carrying the platform's error body so callers can show `message` and branch on `code`. */
export class PlatformError extends Error implements PlatformErrorBody {
  readonly status: number;
  readonly error: string;
  readonly code?: string;
  readonly details?: unknown;
  /** Seconds to wait, from Retry-After on 429 and 503. */
  readonly retryAfterSeconds?: number;

  constructor(status: number, body: PlatformErrorBody, retryAfterSeconds?: number) {
    super(body.message || body.error);
    this.name = 'PlatformError';
    this.status = status;
    this.error = body.error;
    this.code = body.code;
    this.details = body.details;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** Where the session lives between page loads (the console passes localStorage; tests keep it in memory). */
export interface SessionStore {
  load(): Session | null;
  save(session: Session | null): void;
}

export const memorySessionStore = (): SessionStore => {
  let current: Session | null = null;
  return { load: () => current, save: (s) => void (current = s) };
};

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  form?: FormData;
  /** Send no bearer token (sign-in, register, refresh). */
  anonymous?: boolean;
  signal?: AbortSignal;
  accept?: string;
}

export interface HttpOptions {
  /** Origin of the platform's gateway; '' for the page's own origin (the console). */
  baseUrl?: string;
  sessions?: SessionStore;
  fetch?: typeof fetch;
}

/**
 * Fetch with the session's bearer token. An access token that expired mid-session is refreshed once with the
 * refresh token (POST /api/auth/refresh) and the request replayed; a failed refresh ends the session.
 */
export class Http {
  readonly baseUrl: string;
  readonly sessions: SessionStore;
  private readonly fetchImpl: typeof fetch;
  private refreshing: Promise<boolean> | null = null;
  /** Called when the session ends because it can no longer be refreshed. */
  onSignedOut?: () => void;

  constructor(options: HttpOptions = {}) {
    this.baseUrl = (options.baseUrl ?? '').replace(/\/$/, '');
    this.sessions = options.sessions ?? memorySessionStore();
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
  }

  url(path: string, query?: RequestOptions['query']): string {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== '') params.set(k, String(v));
    const qs = params.toString();
    return `${this.baseUrl}${path}${qs ? `?${qs}` : ''}`;
  }

  /**
   * fetch with the session: adds the bearer token, and on a 401 refreshes the session once and replays the
   * request. The generated client (openapi-fetch) sends every request through it.
   */
  readonly fetch = async (request: Request): Promise<Response> => {
    const replay = request.clone();
    const response = await this.fetchImpl(this.authorize(request));
    if (response.status !== 401 || !(await this.refresh())) return response;
    return this.fetchImpl(this.authorize(replay));
  };

  /** fetch without the session (sign-in, register, refresh). */
  readonly anonymousFetch = (request: Request): Promise<Response> => this.fetchImpl(request);

  /** The raw response of a successful request (2xx), or a PlatformError: for streams (SSE) and downloads. */
  async raw(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { accept: options.accept ?? 'application/json' };
    let body: FormData | string | undefined;
    if (options.form) body = options.form;
    else if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    const request = new Request(this.url(path, options.query), { method, headers, body, signal: options.signal });
    const response = await (options.anonymous ? this.anonymousFetch(request) : this.fetch(request));
    if (!response.ok) throw await toError(response);
    return response;
  }

  /** Untyped JSON call (same session and errors); prefer the generated client (`PlatformClient.api`). */
  async json<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const response = await this.raw(method, path, options);
    if (response.status === 204) return undefined as T;
    return (await response.json()) as T;
  }

  private authorize(request: Request): Request {
    const session = this.sessions.load();
    if (session) request.headers.set('authorization', `Bearer ${session.accessToken}`);
    return request;
  }

  private refresh(): Promise<boolean> {
    const session = this.sessions.load();
    if (!session) return Promise.resolve(false);
    // Parallel requests that all got 401 share one refresh (a refresh token is exchanged once).
    this.refreshing ??= (async () => {
      try {
        const r = await this.raw('POST', '/api/auth/refresh', { anonymous: true, body: { refreshToken: session.refreshToken } });
        const { data } = (await r.json()) as { data: Session };
        this.sessions.save(data);
        return true;
      } catch {
        this.sessions.save(null);
        this.onSignedOut?.();
        return false;
      } finally {
        this.refreshing = null;
      }
    })();
    return this.refreshing;
  }
}

async function toError(response: Response): Promise<PlatformError> {
  let parsed: unknown;
  try {
    parsed = await response.json();
  } catch {
    parsed = undefined;
  }
  return errorFrom(response, parsed);
}

/** A PlatformError from a failed response and its already-parsed body (JSON object, text, or nothing). */
export function errorFrom(response: Response, parsed: unknown): PlatformError {
  const retry = Number(response.headers.get('retry-after'));
  const retryAfter = Number.isFinite(retry) && retry > 0 ? retry : undefined;
  const fields = parsed && typeof parsed === 'object' ? (parsed as Partial<PlatformErrorBody>) : undefined;
  const body: PlatformErrorBody = fields
    ? { error: fields.error ?? response.statusText, message: fields.message ?? fields.error ?? response.statusText, ...fields }
    : { error: response.statusText || `HTTP ${response.status}`, message: `The platform answered ${response.status}` };
  return new PlatformError(response.status, body, retryAfter);
}

export interface SseFrame {
  event: string;
  id?: string;
  data: string;
}

/**
 * Reads `text/event-stream` frames from a fetch body. fetch rather than EventSource: EventSource cannot send
 * the Authorization header the JWT surface needs.
 */
export async function* readSse(response: Response): AsyncGenerator<SseFrame> {
  if (!response.body) return;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
    let end: number;
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const frame: SseFrame = { event: 'message', data: '' };
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (!line || line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') frame.event = value;
        else if (field === 'id') frame.id = value;
        else if (field === 'data') data.push(value);
      }
      if (data.length) {
        frame.data = data.join('\n');
        yield frame;
      }
    }
  }
}
