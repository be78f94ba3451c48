/**
 * The api's entry check for requests the gateway of the same process hands over (identity and, when the
 * gateway has read it, the body in memory): the body is parsed and capped as a signed request's would be, and
 * a request that was not handed over still needs the gateway's signature.
 */
import express, { type NextFunction, type Request, type Response } from 'express';

import { createIdentityHandoff } from '../../core/identity/identity-handoff';
import type { ForwardedIdentity } from '../../core/identity/token-claims';
import { withListening } from '../../test/support/http';
import { InProcessNonceRegistry } from '../memory/in-process.nonce-registry';
import { toHttpError } from './error-mapper';
import { signedRequests } from './signed-request';

const identity: ForwardedIdentity = {
  userId: 'u1',
  organizationId: 'o1',
  email: 'u1@example.com',
  platformRole: 'user',
  orgRole: 'owner',
  apiKeyId: null,
  apiKeyScopes: [],
  clientIp: '127.0.0.1',
};

/** Stands in for the gateway: reads the body, then hands the request over (unless `x-not-handed` is sent). */
function app() {
  const handoff = createIdentityHandoff();
  const a = express();
  a.use((req: Request, _res: Response, next: NextFunction) => {
    if (req.headers['x-not-handed']) return next();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      handoff.give(req, identity, body.length ? body : undefined);
      next();
    });
  });
  a.use(
    signedRequests({
      internalSecret: 'x'.repeat(32),
      clock: { now: () => new Date() },
      nonces: new InProcessNonceRegistry(),
      maxAgeMs: 10_000,
      maxBodyBytes: 64,
      maxJsonBytes: 32,
      jsonMaxDepth: 4,
      handoff,
    }),
  );
  a.use((req: Request, res: Response) => {
    res.json({
      user: (res.locals.identity as ForwardedIdentity).userId,
      body: req.body ?? null,
      raw: (res.locals.rawBody as Buffer).length,
    });
  });
  a.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const { status, body } = toHttpError(err);
    res.status(status).json(body);
  });
  return a;
}

const post = (base: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${base}/x`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } }).then(async (r) => ({
    status: r.status,
    body: (await r.json()) as Record<string, unknown>,
  }));

describe('requests handed over in process', () => {
  it('parses a handed-over JSON body and keeps its bytes, as for a signed request', async () => {
    await withListening(app(), async (base) => {
      expect(await post(base, '{"a":[1,2]}')).toEqual({ status: 200, body: { user: 'u1', body: { a: [1, 2] }, raw: 11 } });
      expect((await fetch(`${base}/x`)).status).toBe(200); // no body: nothing to parse
    });
  });

  it('holds a handed-over body to the same limits: size 413, bad JSON and depth 400', async () => {
    await withListening(app(), async (base) => {
      expect(await post(base, JSON.stringify({ long: 'y'.repeat(40) }))).toMatchObject({ status: 413 });
      expect(await post(base, '{"a":')).toMatchObject({ status: 400, body: { message: 'Request body is not valid JSON' } });
      expect(await post(base, '{"a":{"b":{"c":{"d":{"e":1}}}}}')).toMatchObject({ status: 400 });
    });
  });

  it('still asks for the signature of a request that was not handed over', async () => {
    await withListening(app(), async (base) => {
      expect(await post(base, '{}', { 'x-not-handed': '1' })).toMatchObject({ status: 401 });
    });
  });
});
