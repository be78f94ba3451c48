import express, { type RequestHandler } from 'express';
import helmet from 'helmet';

import { withListening } from '../../test/support/http';
import { securityHeaders } from './security-headers';

/** Everything a route answers with, header by header (the date aside), from a real express app. */
async function answerOf(middleware: RequestHandler): Promise<Record<string, string>> {
  const app = express();
  app.set('etag', false);
  app.use(middleware);
  app.get('/x', (_req, res) => void res.json({ ok: true }));
  return withListening(app, async (base) => {
    const res = await fetch(`${base}/x`);
    const headers = Object.fromEntries(res.headers);
    delete headers.date;
    return headers;
  });
}

describe('security headers worked out once', () => {
  it('answer exactly what helmet answers on every request, X-Powered-By removed included', async () => {
    const options = { strictTransportSecurity: false } as const;
    const once = await answerOf(securityHeaders(options));
    expect(once).toEqual(await answerOf(helmet(options)));
    expect(once['content-security-policy']).toContain("default-src 'self'");
    expect(once['x-powered-by']).toBeUndefined();
    expect(once['strict-transport-security']).toBeUndefined();
  });

  it('refuse at boot a configuration whose headers depend on the request', () => {
    const nonce = (_req: unknown, res: { locals: { nonce: string } }) => `'nonce-${res.locals.nonce}'`;
    expect(() => securityHeaders({ contentSecurityPolicy: { directives: { scriptSrc: [nonce as never] } } })).toThrow(/per-request/);
  });
});
