import { createCipheriv, createDecipheriv, createHash, type Hash, hkdfSync, randomBytes, randomUUID } from 'node:crypto';

import type { NextFunction, Request, Response } from 'express';

import type { ForwardedIdentity } from '../../core/identity/token-claims';
import type { Clock } from '../../core/ports/clock';
import type { IdempotencyStore, StoredAnswer } from '../../core/ports/idempotency-store';
import { isOpenAiCompatiblePath, toOpenAiError } from '../../core/shared/openai-error';

/**
 * `Idempotency-Key` on every POST of `/api` and `/v1` (docs/contracts.md "Delivery guarantees"), with Stripe's rules:
 *
 * - the key is a UUID (anything else: 400 Validation Error); it belongs to a scope: the organization of the
 *   caller (the API key's on /v1), `anon:<anonymousId>` on the public lane, `user:<id>` for a signed-in user
 *   without an organization, `open` on the credential-less lane (sign-in, register, refresh);
 * - the first request with a key claims it (one atomic statement), runs, and its answer is kept for 24 hours:
 *   2xx and 4xx answers (429 excepted); after a 5xx or a 429 the claim is forgotten, so a retry runs again;
 * - the same key for the same request (method, path with query, caller and body) replays the kept status and
 *   body with `Idempotent-Replayed: true`; for another request it is `409 idempotency_key_reused`; while the
 *   first is still running, `409 idempotency_key_in_use` with `Retry-After: 1` (no waiting: a chat turn can
 *   take a minute). The caller is part of the request: another user or API key of the organization never
 *   gets someone else's answer (409 instead);
 * - an event stream (SSE) that ran to its end is kept whole and replayed at once as the same stream; one cut
 *   off (the client went away) or an answer over `maxAnswerBytes` is kept as used but not replayable:
 *   `409 idempotency_answer_unavailable` (the work it did is not done twice);
 * - multipart bodies are compared without their boundary (a client's retry draws a new one);
 * - a claim is renewed while its request runs; one left by a process that died lapses after `lockMs` and is
 *   then answered `409 idempotency_answer_unavailable`: its work may have committed before the answer could be
 *   kept, so it is never run a second time (the client uses a new key once it has checked what happened).
 *
 * The key itself is not stored (its SHA-256 is) and the answer is sealed with AES-256-GCM under a key derived
 * from it: kept answers can hold secrets shown once (a new API key, session tokens), unreadable from the
 * database alone. `Set-Cookie` is not replayed.
 *
 * `POST /v1/agents:from-url` honours the key itself (spec 4.13: concurrent calls with one key all follow one
 * build, another body is 409 Conflict with details.code idempotency_key_reused) and is left to it.
 * Runs after the signature check (identity and raw body known), before the operations.
 */
export interface IdempotencyOptions {
  store: IdempotencyStore;
  clock: Clock;
  log?: (level: 'error' | 'warn' | 'info', message: string, extra?: unknown) => void;
  /** How long a key is remembered (default 24 h). */
  ttlMs?: number;
  /** How long an unfinished claim holds unless renewed (default 60 s); renewed every third of it. */
  lockMs?: number;
  /** Largest answer kept for replay (default 1 MiB); a larger one is kept as used, not replayable. */
  maxAnswerBytes?: number;
  /** Least time between two purges of expired keys by this process (default 10 minutes). */
  purgeEveryMs?: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const COVERED = /^\/(?:api|v1)\//i;
const PUBLIC_LANE = /^\/api\/public\//i;
/** Operations with rules of their own for the key (spec 4.13); lower case, as the router matches ignoring case. */
const OWN_RULES = new Set(['/v1/agents:from-url']);
/** The headers of an answer worth replaying (Set-Cookie is not: see above). */
const REPLAYED_HEADERS = ['content-type', 'location', 'content-disposition'];
const PURGE_BATCH = 1000;
const MAX_CLAIM_ATTEMPTS = 3;

type Refusal = [status: number, error: string, code: string, message: string];
const MALFORMED: Refusal = [400, 'Validation Error', 'VALIDATION', 'Idempotency-Key must be a UUID'];
const REUSED: Refusal = [
  409,
  'idempotency_key_reused',
  'IDEMPOTENCY_KEY_REUSED',
  'This Idempotency-Key was already used with a different request (method, path, caller or body)',
];
const IN_USE: Refusal = [
  409,
  'idempotency_key_in_use',
  'IDEMPOTENCY_KEY_IN_USE',
  'A request with this Idempotency-Key is still being processed; retry shortly',
];
const UNAVAILABLE: Refusal = [
  409,
  'idempotency_answer_unavailable',
  'IDEMPOTENCY_ANSWER_UNAVAILABLE',
  'The request with this Idempotency-Key already ran, but its answer (a stream cut off, or too large) was not kept; use a new key to run it again',
];

function refuse(req: Request, res: Response, [status, error, code, message]: Refusal): void {
  const body = { error, message, code };
  if (status === 409 && code === IN_USE[2]) res.setHeader('Retry-After', '1');
  res.status(status).json(isOpenAiCompatiblePath(req.path) ? toOpenAiError(status, body) : body);
}

interface Settings {
  store: IdempotencyStore;
  clock: Clock;
  log: NonNullable<IdempotencyOptions['log']>;
  ttlMs: number;
  lockMs: number;
  maxAnswerBytes: number;
  purgeEveryMs: number;
  nextPurgeAt: number;
}

export function idempotentPosts(options: IdempotencyOptions) {
  const s: Settings = {
    store: options.store,
    clock: options.clock,
    log: options.log ?? (() => undefined),
    ttlMs: options.ttlMs ?? 24 * 60 * 60 * 1000,
    lockMs: options.lockMs ?? 60_000,
    maxAnswerBytes: options.maxAnswerBytes ?? 1024 * 1024,
    purgeEveryMs: options.purgeEveryMs ?? 10 * 60 * 1000,
    nextPurgeAt: 0,
  };
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.method !== 'POST') return next();
    const header = req.headers['idempotency-key'];
    if (header === undefined || !COVERED.test(req.path) || OWN_RULES.has(withoutTrailingSlash(req.path).toLowerCase())) return next();
    const key = typeof header === 'string' ? header.trim() : '';
    if (!UUID.test(key)) return refuse(req, res, MALFORMED);
    handle(s, req, res, next, key.toLowerCase()).catch(next);
  };
}

const withoutTrailingSlash = (path: string) => (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path);

async function handle(s: Settings, req: Request, res: Response, next: NextFunction, key: string): Promise<void> {
  const identity = (res.locals.identity ?? null) as ForwardedIdentity | null;
  const scope = scopeOf(req, identity);
  const keyHash = createHash('sha256').update(`idempotency-key:${key}`).digest('hex');
  const fingerprint = fingerprintOf(req, (res.locals.rawBody as Buffer | undefined) ?? Buffer.alloc(0), identity);
  purgeNowAndThen(s);
  for (let attempt = 0; attempt < MAX_CLAIM_ATTEMPTS; attempt++) {
    const now = s.clock.now().getTime();
    const lockToken = randomUUID();
    const outcome = await s.store.claim({
      scope,
      keyHash,
      method: req.method,
      path: req.originalUrl,
      fingerprint,
      lockToken,
      now: new Date(now).toISOString(),
      lockedUntil: new Date(now + s.lockMs).toISOString(),
      expiresAt: new Date(now + s.ttlMs).toISOString(),
    });
    if (outcome.claimed) {
      new CapturedAnswer(s, res, { scope, keyHash, lockToken, key }).start();
      return next();
    }
    const existing = outcome.existing;
    if (!existing) continue; // released between the two statements: claim again
    if (existing.fingerprint !== fingerprint) return refuse(req, res, REUSED);
    if (existing.state === 'in_progress' || !existing.answer) return refuse(req, res, IN_USE);
    return replay(req, res, existing.answer, scope, key);
  }
  refuse(req, res, IN_USE);
}

/** Whose key it is: the public lane's visitor, else the organization, else the user; `open` without credentials. */
function scopeOf(req: Request, identity: ForwardedIdentity | null): string {
  if (PUBLIC_LANE.test(req.path)) {
    const fromBody = (req.body as { anonymousId?: unknown } | undefined)?.anonymousId;
    const anonymousId = typeof fromBody === 'string' ? fromBody : req.query.anonymousId;
    if (typeof anonymousId === 'string' && anonymousId.length > 0 && anonymousId.length <= 200) return `anon:${anonymousId}`;
  }
  if (identity?.organizationId) return identity.organizationId;
  if (identity?.userId) return `user:${identity.userId}`;
  return 'open';
}

/**
 * SHA-256 over the method, the path with its query, the caller, the media type and the body bytes. A multipart
 * body is hashed with every `--<boundary>` written as `--`: the boundary is random per attempt, the parts are not.
 */
export function fingerprintOf(
  req: Pick<Request, 'method' | 'originalUrl' | 'headers'>,
  raw: Buffer,
  identity: Pick<ForwardedIdentity, 'userId' | 'apiKeyId'> | null,
): string {
  const caller = identity?.apiKeyId ? `key:${identity.apiKeyId}` : identity?.userId ? `user:${identity.userId}` : '-';
  const contentType = req.headers['content-type'] ?? '';
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  const hash = createHash('sha256').update(`${req.method}\n${req.originalUrl}\n${caller}\n${mediaType}\n`);
  const boundary = mediaType.startsWith('multipart/') ? /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType) : null;
  if (boundary) hashWithout(hash, raw, Buffer.from(`--${boundary[1] ?? boundary[2]}`));
  else hash.update(raw);
  return hash.digest('hex');
}

function hashWithout(hash: Hash, raw: Buffer, marker: Buffer): void {
  let from = 0;
  for (let at = raw.indexOf(marker, from); at >= 0; at = raw.indexOf(marker, from)) {
    hash.update(raw.subarray(from, at)).update('--');
    from = at + marker.length;
  }
  hash.update(raw.subarray(from));
}

function purgeNowAndThen(s: Settings): void {
  const now = s.clock.now().getTime();
  if (now < s.nextPurgeAt) return;
  s.nextPurgeAt = now + s.purgeEveryMs;
  s.store.purgeExpired(new Date(now).toISOString(), PURGE_BATCH).catch((e) => s.log('warn', 'idempotency: purging expired keys failed', e));
}

function replay(req: Request, res: Response, answer: StoredAnswer, scope: string, key: string): void {
  const body = answer.replayable ? unseal(key, scope, answer.body) : null;
  if (!body) return refuse(req, res, UNAVAILABLE);
  res.statusCode = answer.status;
  for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  res.setHeader('Idempotent-Replayed', 'true');
  res.setHeader('Content-Length', body.length);
  res.end(body);
}

/** AES-256-GCM under a key derived from the Idempotency-Key and its scope: iv (12) | tag (16) | ciphertext. */
function seal(key: string, scope: string, plain: Buffer): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', answerKey(key, scope), iv);
  const sealed = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]);
}

function unseal(key: string, scope: string, stored: Uint8Array | null): Buffer | null {
  if (!stored) return Buffer.alloc(0);
  const bytes = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
  if (bytes.length < 28) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', answerKey(key, scope), bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]);
  } catch {
    return null;
  }
}

const answerKey = (key: string, scope: string) => Buffer.from(hkdfSync('sha256', key, scope, 'idempotent-answer', 32));

interface Claim {
  scope: string;
  keyHash: string;
  lockToken: string;
  key: string;
}

type Writer = (this: Response, ...args: unknown[]) => unknown;

/**
 * Keeps what the handler writes (status, replayed headers, body bytes up to the cap) and, when it ends the
 * answer, stores it (or forgets the claim) before the last bytes go out: a client that has its answer finds
 * the key completed. A stream cut off by the client is kept as used, not replayable.
 */
class CapturedAnswer {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private kept = true;
  private settled = false;
  private ending = false;
  private renewal: NodeJS.Timeout | null = null;
  private readonly write: Writer;
  private readonly end: Writer;

  constructor(
    private readonly s: Settings,
    private readonly res: Response,
    private readonly claim: Claim,
  ) {
    this.write = res.write as unknown as Writer;
    this.end = res.end as unknown as Writer;
  }

  start(): void {
    const { res } = this;
    (res as unknown as { write: Writer }).write = (...args: unknown[]) => {
      this.keep(args[0], args[1]);
      return this.write.apply(res, args);
    };
    (res as unknown as { end: Writer }).end = (...args: unknown[]) => {
      if (this.ending) return res; // the answer is being kept: it ends once, with what it ended with
      if (this.settled) return this.end.apply(res, args);
      this.ending = true;
      this.keep(args[0], args[1]);
      const status = res.statusCode;
      void this.settle(true).then(() => {
        this.restore();
        if (!res.headersSent) res.statusCode = status;
        this.end.apply(res, args);
      });
      return res;
    };
    res.once('close', () => {
      if (this.settled) return;
      if (res.headersSent) {
        // Cut off mid-answer (a stream the client left): what ran is not run again, nor replayed.
        this.kept = false;
        this.restore();
        void this.settle(false);
      } else this.stopRenewing(); // the handler still runs and will end the answer; past lockMs its claim lapses
    });
    this.renewal = setInterval(() => this.renew(), Math.max(1000, Math.floor(this.s.lockMs / 3)));
    this.renewal.unref();
  }

  private keep(chunk: unknown, encoding: unknown): void {
    if (!this.kept || chunk === undefined || chunk === null || typeof chunk === 'function') return;
    const bytes =
      typeof chunk === 'string'
        ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
        : chunk instanceof Uint8Array
          ? Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
          : null;
    if (!bytes) return;
    this.size += bytes.length;
    if (this.size > this.s.maxAnswerBytes) {
      this.kept = false;
      this.chunks.length = 0;
      return;
    }
    this.chunks.push(bytes);
  }

  private restore(): void {
    const res = this.res as unknown as { write: Writer; end: Writer };
    res.write = this.write;
    res.end = this.end;
  }

  private stopRenewing(): void {
    if (this.renewal) clearInterval(this.renewal);
    this.renewal = null;
  }

  private renew(): void {
    const { scope, keyHash, lockToken } = this.claim;
    const until = new Date(this.s.clock.now().getTime() + this.s.lockMs).toISOString();
    this.s.store
      .renew(scope, keyHash, lockToken, until)
      .then((held) => held || this.stopRenewing())
      .catch((e) => this.s.log('warn', 'idempotency: renewing a claim failed', e));
  }

  /** Stores the answer (2xx, 4xx but 429) or forgets the claim (5xx, 429); never fails the answer itself. */
  private async settle(ended: boolean): Promise<void> {
    this.settled = true;
    this.stopRenewing();
    const { scope, keyHash, lockToken, key } = this.claim;
    const status = this.res.statusCode;
    try {
      if (status >= 500 || status === 429) {
        await this.s.store.release(scope, keyHash, lockToken);
        return;
      }
      const replayable = ended && this.kept;
      const headers: Record<string, string> = {};
      for (const name of REPLAYED_HEADERS) {
        const value = this.res.getHeader(name);
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
      }
      const answer: StoredAnswer = {
        status,
        headers,
        body: replayable ? seal(key, scope, Buffer.concat(this.chunks)) : null,
        replayable,
      };
      this.chunks.length = 0;
      const stored = await this.s.store.complete(scope, keyHash, lockToken, answer, this.s.clock.now().toISOString());
      if (!stored) this.s.log('warn', 'idempotency: a claim lapsed before its answer was kept (the request ran longer than its lock)');
    } catch (e) {
      this.s.log('warn', 'idempotency: keeping an answer failed', e);
    }
  }
}
