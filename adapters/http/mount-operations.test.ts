import express, { type Request } from 'express';

import type { Operation } from '../../contracts/operation';
import { withListening } from '../../test/support/http';
import type { HandlerMap } from './handler';
import { mountOperations, segmentsOf } from './mount-operations';

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
  it('reads a path as literal and parameter segments (an escaped colon is a literal one), and nothing else', () => {
    expect(segmentsOf('/api/auth/me')).toEqual({ literals: ['', 'api', 'auth', 'me'], names: [] });
    expect(segmentsOf('/v1/models\\:list')).toEqual({ literals: ['', 'v1', 'models:list'], names: [] });
    expect(segmentsOf('/api/agents/:id/channels/:channelId')).toEqual({
      literals: ['', 'api', 'agents', null, 'channels', null],
      names: ['id', 'channelId'],
    });
    expect(segmentsOf('/files/*rest')).toBeNull();
    expect(segmentsOf('/files/:name.json')).toBeNull();
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

  it('matches parameterised paths as the router would: decoded params, order of registration, the rest to the router', async () => {
    const ops = [
      operation('webhook', 'post', '/api/channels/:channelId/webhook'),
      operation('getChannel', 'get', '/api/agents/:id/channels/:channelId'),
      operation('agentChannels', 'get', '/api/agents/:id/channels/latest'), // the route above takes it
      operation('files', 'get', '/files/*rest'),
      operation('afterWildcard', 'get', '/after/:id'), // after a wildcard route: the router's to match
    ];
    await withOperations(ops, async (base) => {
      expect(await call(base, 'POST', '/api/channels/c%201/webhook')).toEqual({
        status: 200,
        op: 'webhook',
        route: '/api/channels/:channelId/webhook',
        params: { channelId: 'c 1' },
      });
      expect(await call(base, 'GET', '/api/agents/a1/channels/latest')).toEqual({
        status: 200,
        op: 'getChannel',
        route: '/api/agents/:id/channels/:channelId',
        params: { id: 'a1', channelId: 'latest' },
      });
      expect(await call(base, 'GET', '/after/7')).toMatchObject({ op: 'afterWildcard', params: { id: '7' } });
      expect(await call(base, 'GET', '/files/a/b')).toMatchObject({ op: 'files' });
      // an empty parameter matches nothing; a parameter that does not decode is the router's 400
      expect(await call(base, 'POST', '/api/channels//webhook')).toEqual({ status: 404, op: null });
      expect((await fetch(`${base}/api/channels/%E0%A4%A/webhook`, { method: 'POST' })).status).toBe(400);
      expect(await call(base, 'POST', '/API/channels/c1/webhook')).toMatchObject({ op: 'webhook', params: { channelId: 'c1' } });
      expect(await call(base, 'POST', '/api/channels/c1/webhook/')).toMatchObject({ op: 'webhook', params: { channelId: 'c1' } });
    });
  });
});
