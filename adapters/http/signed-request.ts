import { createHash } from 'node:crypto';

import type { NextFunction, Request, Response } from 'express';

import { BODY_SIGNATURE_TRAILER, DIGEST_IN_TRAILER, verifyBodyTrailer, verifyIdentity } from '../../core/identity/gateway-signature';
import type { IdentityHandoff } from '../../core/identity/identity-handoff';
import type { Clock } from '../../core/ports/clock';
import type { NonceRegistry } from '../../core/ports/nonce-registry';
import { codeForStatus } from '../../core/shared/status-codes';
import { JSON_CONTENT_TYPE, parseJsonBody } from './json-body';

export interface SignedRequestOptions {
  internalSecret: string;
  clock: Clock;
  nonces: NonceRegistry;
  /** Oldest signature accepted (ms); a clock may also run up to 2 s ahead. */
  maxAgeMs: number;
  /** Largest body read at all (uploads included); larger: 413. */
  maxBodyBytes: number;
  /** Largest JSON body; larger: 413. */
  maxJsonBytes: number;
  jsonMaxDepth: number;
  /** Requests the gateway of this process handed over with their identity (no signature to check). */
  handoff?: IdentityHandoff;
  log?: (level: 'error' | 'warn' | 'info', message: string, extra?: unknown) => void;
}

const FUTURE_MS = 2000;
const EMPTY = Buffer.alloc(0);

function refuse(res: Response, status: number, error: string, message: string): void {
  if (res.headersSent) return void res.end();
  res.status(status).json({ error, message, code: codeForStatus(status) });
}

/**
 * Trusts a request only with the gateway's signature: inside the window, its nonce claimed for the first time,
 * and a body whose digest is the signed one (from the headers, or from the signed trailer of a streamed body).
 * The body is read here, once: JSON bodies are parsed (depth and NUL checked); the raw bytes of every body
 * are kept in `res.locals.rawBody` (the multipart reader uses them).
 */
export function signedRequests(o: SignedRequestOptions) {
  const capOf = (isJson: boolean) => (isJson ? o.maxJsonBytes : o.maxBodyBytes);
  /** Lets a request on with its identity and body; the exact bytes stay available (the multipart reader, receivers verifying a sender's signature). */
  const admit = (req: Request, res: Response, identity: unknown, raw: Buffer, isJson: boolean) => {
    res.locals.identity = identity;
    res.locals.rawBody = raw;
    if (isJson && raw.length > 0) req.body = parseJsonBody(raw, o.jsonMaxDepth);
  };
  /** A request the gateway of this process handed over: no signature to check; a body it read meets the same caps. */
  const acceptHandedOver = (req: Request, res: Response, next: NextFunction, identity: unknown, body: Uint8Array | null) => {
    const raw = body ? Buffer.from(body.buffer, body.byteOffset, body.byteLength) : EMPTY;
    const isJson = JSON_CONTENT_TYPE.test(req.headers['content-type'] ?? '');
    if (raw.length > capOf(isJson)) return refuse(res, 413, 'Payload Too Large', 'Request body is too large');
    try {
      admit(req, res, identity, raw, isJson);
    } catch (error) {
      return next(error);
    }
    next();
  };
  return (req: Request, res: Response, next: NextFunction): void => {
    const handedOver = o.handoff?.take(req);
    if (handedOver) return acceptHandedOver(req, res, next, handedOver.identity, handedOver.body);
    const now = o.clock.now().getTime();
    const verified = verifyIdentity(o.internalSecret, req.headers, req.method, req.originalUrl, now, {
      maxAgeMs: o.maxAgeMs,
      maxFutureMs: FUTURE_MS,
    });
    if (!verified) return refuse(res, 401, 'Authentication Failed', 'Requests must come through the gateway');
    const declared = Number(req.headers['content-length']);
    const isJson = JSON_CONTENT_TYPE.test(req.headers['content-type'] ?? '');
    const cap = capOf(isJson);
    if (Number.isFinite(declared) && declared > cap) {
      req.resume();
      return refuse(res, 413, 'Payload Too Large', 'Request body is too large');
    }
    o.nonces
      .claim(verified.nonce, o.maxAgeMs + FUTURE_MS + 1000)
      .then(async (fresh) => {
        if (!fresh) return refuse(res, 401, 'Authentication Failed', 'This signed request was already used');
        const raw = await readBody(req, cap);
        if (raw === 'too-large') return refuse(res, 413, 'Payload Too Large', 'Request body is too large');
        if (raw === null) return; // the connection went away
        const digest = createHash('sha256').update(raw).digest('hex');
        const intact =
          verified.bodyDigest === DIGEST_IN_TRAILER
            ? verifyBodyTrailer(o.internalSecret, verified.signature, digest, req.trailers[BODY_SIGNATURE_TRAILER])
            : digest === verified.bodyDigest;
        if (!intact) return refuse(res, 401, 'Authentication Failed', 'The request body does not match its signature');
        admit(req, res, verified.identity, raw, isJson);
        next();
      })
      .catch(next);
  };
}

function readBody(req: Request, cap: number): Promise<Buffer | 'too-large' | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (v: Buffer | 'too-large' | null) => {
      if (done) return;
      done = true;
      resolve(v);
    };
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > cap) {
        chunks.length = 0;
        req.resume();
        return finish('too-large');
      }
      if (!done) chunks.push(c);
    });
    req.once('end', () => finish(Buffer.concat(chunks)));
    req.once('error', () => finish(null));
    req.once('close', () => {
      if (!req.complete) finish(null);
    });
  });
}
