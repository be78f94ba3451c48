import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import express, { Router } from 'express';

import { staticRouteIndex } from './static-route-index';

/** Routes in an order where the walk's first match matters: a parameter route shadows a later static path. */
function routes(withIndex: boolean) {
  const router = Router();
  const index = staticRouteIndex(router);
  if (withIndex) router.use(index.middleware);
  const answer = (name: string) => (req: express.Request, res: express.Response) =>
    void res.json({ name, route: (req.route as { path: string }).path, params: req.params });
  router.get('/api/auth/me', answer('me'));
  router.get('/api/agents/:id', answer('agent'));
  router.get('/api/agents/export', answer('export (shadowed)'));
  router.post('/api/agents/export', answer('export post'));
  router.get('/api/late', answer('late'));
  router.get('/api/fails', () => {
    throw new Error('boom');
  });
  if (withIndex) index.build();
  const app = express();
  app.use(router);
  app.use((_req: express.Request, res: express.Response) => void res.status(404).json({ name: 'unmatched' }));
  app.use(
    (_err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) =>
      void res.status(500).json({ name: 'error' }),
  );
  return { app, index };
}

async function listen(app: express.Express): Promise<{ base: string; server: Server }> {
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('static route index', () => {
  it('answers every request exactly as the route walk does', async () => {
    const walk = await listen(routes(false).app);
    const indexed = await listen(routes(true).app);
    const requests: [string, string][] = [
      ['GET', '/api/auth/me'],
      ['GET', '/API/auth/me'],
      ['GET', '/api/auth/me/'],
      ['HEAD', '/api/auth/me'],
      ['GET', '/api/agents/7'],
      ['GET', '/api/agents/export'],
      ['POST', '/api/agents/export'],
      ['GET', '/api/late?x=1'],
      ['DELETE', '/api/late'],
      ['GET', '/api/fails'],
      ['GET', '/nowhere'],
    ];
    try {
      for (const [method, path] of requests) {
        const answers = await Promise.all(
          [walk, indexed].map(async ({ base }) => {
            const r = await fetch(`${base}${path}`, { method });
            return { status: r.status, body: await r.text() };
          }),
        );
        expect([method, path, answers[1]]).toEqual([method, path, answers[0]]);
      }
    } finally {
      await Promise.all([walk, indexed].map(({ server }) => new Promise((r) => server.close(r))));
    }
  });

  it('indexes only what no earlier route claims', () => {
    // me, export (POST; the GET is shadowed by /api/agents/:id), late, fails
    expect(routes(true).index.size()).toBe(4);
  });
});
