import express, { type Request } from 'express';

import type { Operation } from '../../contracts/operation';
import { withListening } from '../../test/support/http';
import type { HandlerMap } from './handler';
import { mountOperations, staticPathOf } from './mount-operations';

const operation = (operationId: string, method: Operation['method'], path: string): Operation => ({
  operationId,
  method,
  path,
  summary: operationId,
  tags: [],
  auth: 'public',
  responses: {},
});

/** Every handler answers its operation id, the route path the request carries and its params. */
async function withOperations(operations: Operation[], run: (base: string) => Promise<void>) {
  const handlers: HandlerMap = Object.fromEntries(
    operations.map((o) => [
      o.operationId,
      async (ctx: { req: Request; params: Record<string, string> }) => ({
        status: 200,
        body: { op: o.operationId, route: (ctx.req.route as { path?: string } | undefined)?.path ?? null, params: ctx.params },
      }),
    ]),
  ) as unknown as HandlerMap;
  const app = express();
  app.use((_req, res, next) => {
    res.locals.identity = { userId: null };
    next();
  });
  app.use(mountOperations(operations, handlers, { identityOf: (req) => req.res!.locals.identity, resolveActor: async () => null }));
  app.use((_req, res) => void res.status(404).json({ op: null }));
  await withListening(app, run);
}

const call = async (base: string, method: string, path: string) => {
  const res = await fetch(base + path, { method });
  return { status: res.status, ...(method === 'HEAD' ? {} : ((await res.json()) as Record<string, unknown>)) };
};

describe('operations: the exact lookup in front of the router', () => {
  it('knows which paths have no parameters (an escaped colon is a literal one)', () => {
    expect(staticPathOf('/api/auth/me')).toBe('/api/auth/me');
    expect(staticPathOf('/v1/models\\:list')).toBe('/v1/models:list');
    expect(staticPathOf('/api/agents/:id')).toBeNull();
    expect(staticPathOf('/files/*rest')).toBeNull();
  });

  it('answers as the router would: the first registered route wins, and every route carries its path', async () => {
    const ops = [
      operation('getAgent', 'get', '/api/agents/:id'),
      operation('agentStats', 'get', '/api/agents/stats'), // registered after a route that takes it: never reached
      operation('me', 'get', '/api/auth/me'),
      operation('createAgent', 'post', '/api/agents'),
      operation('listAgents', 'get', '/api/agents'),
      operation('modelsList', 'get', '/v1/models\\:list'),
    ];
    await withOperations(ops, async (base) => {
      expect(await call(base, 'GET', '/api/auth/me')).toEqual({ status: 200, op: 'me', route: '/api/auth/me', params: {} });
      expect(await call(base, 'GET', '/api/agents/stats')).toEqual({
        status: 200,
        op: 'getAgent',
        route: '/api/agents/:id',
        params: { id: 'stats' },
      });
      expect(await call(base, 'GET', '/api/agents')).toMatchObject({ op: 'listAgents', route: '/api/agents' });
      expect(await call(base, 'POST', '/api/agents')).toMatchObject({ op: 'createAgent', route: '/api/agents' });
      expect(await call(base, 'GET', '/v1/models:list')).toMatchObject({ op: 'modelsList', route: '/v1/models\\:list' });
      // other spellings still reach the route through the router
      expect(await call(base, 'GET', '/API/Auth/Me')).toMatchObject({ op: 'me' });
      expect(await call(base, 'GET', '/api/auth/me/')).toMatchObject({ op: 'me' });
      expect(await call(base, 'HEAD', '/api/auth/me')).toEqual({ status: 200 });
      expect(await call(base, 'DELETE', '/api/auth/me')).toEqual({ status: 404, op: null });
    });
  });
});
