import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  /** Parsed JSON when the response is JSON, else undefined. */
  body: T;
  text: string;
}

export interface CallOptions {
  /** Sent as `Authorization: Bearer <token>` (an access token or an API key). */
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Default `manual`: redirects are checked, not followed. */
  redirect?: 'manual' | 'follow' | 'error';
}

/** A small JSON client over fetch (fetch normalises paths: use `rawRequest` for dot segments). */
export class HttpClient {
  constructor(readonly baseUrl: string) {}

  async request<T = any>(method: string, path: string, options: CallOptions = {}): Promise<Reply<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    }
    const res = await fetch(`${this.baseUrl}${path}`, { method, headers, body, redirect: options.redirect ?? 'manual' });
    const text = await res.text();
    let parsed: unknown;
    if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  get<T = any>(path: string, options?: CallOptions) {
    return this.request<T>('GET', path, options);
  }
  post<T = any>(path: string, body?: unknown, options?: CallOptions) {
    return this.request<T>('POST', path, { ...options, body: body ?? options?.body });
  }
  patch<T = any>(path: string, body?: unknown, options?: CallOptions) {
    return this.request<T>('PATCH', path, { ...options, body: body ?? options?.body });
  }
  delete<T = any>(path: string, options?: CallOptions) {
    return this.request<T>('DELETE', path, options);
  }
}

/**
 * A request whose target is sent byte for byte (no URL normalisation), for path-traversal tests, on a
 * connection of its own (no keep-alive).
 */
export function rawRequest(
  baseUrl: string,
  method: string,
  rawPath: string,
  headers: Record<string, string> = {},
  payload?: Buffer,
): Promise<{ status: number; text: string; body: any }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port: Number(port), method, path: rawPath, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, text, body });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** The payload of a JWT, unverified (tests inspect what the platform issued). */
export function claimsOf(token: string): any {
  const payload = token.split('.')[1];
  if (!payload) throw new Error('not a JWT');
  return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
}

/** Serves `app` on a free loopback port (a server made with `options`) while `run` uses its base URL, then closes it. */
export async function withListening<T>(
  app: http.RequestListener,
  run: (base: string) => Promise<T>,
  options: http.ServerOptions = {},
  onServer: (server: http.Server) => void = () => undefined,
): Promise<T> {
  const server = http.createServer(options, app);
  onServer(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    await new Promise((r) => server.close(r));
  }
}
