import { IncomingMessage, ServerResponse } from 'node:http';

import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';

import { withListening } from '../../test/support/http';
import { exactGets, expressMessageClasses, middlewareChain, type Pipeline, servePipeline } from './middleware-chain';

const mark =
  (name: string): RequestHandler =>
  (_req, res, next) => {
    res.append('x-steps', name);
    next();
  };

/** An app with `front` as its first layer, then a catch-all answering the steps taken, then an error handler. */
async function withFront(front: RequestHandler, run: (get: (path: string, method?: string) => Promise<Answer>) => Promise<void>) {
  const app = express();
  app.use(front);
  app.use(
    (req: Request, res: Response) => void res.json({ reached: 'end', route: (req.route as { path?: string } | undefined)?.path ?? null }),
  );
  app.use((err: Error, _req: Request, res: Response, _next: NextFunction) => void res.status(500).json({ error: err.message }));
  await withListening(app, async (base) =>
    run(async (path, method = 'GET') => {
      const res = await fetch(`${base}${path}`, { method });
      const text = await res.text();
      return { status: res.status, steps: res.headers.get('x-steps'), body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
    }),
  );
}
interface Answer {
  status: number;
  steps: string | null;
  body: Record<string, unknown> | null;
}

describe('middlewareChain: the api front as one express layer', () => {
  it('runs its handlers in order and then the next layer', async () => {
    await withFront(middlewareChain(mark('a'), mark('b'), mark('c')), async (get) => {
      expect(await get('/x')).toEqual({ status: 200, steps: 'a, b, c', body: { reached: 'end', route: null } });
    });
  });

  it('stops where a handler answers', async () => {
    const answers: RequestHandler = (_req, res) => void res.status(202).json({ reached: 'b' });
    await withFront(middlewareChain(mark('a'), answers, mark('c')), async (get) => {
      expect(await get('/x')).toEqual({ status: 202, steps: 'a', body: { reached: 'b' } });
    });
  });

  it.each<[string, RequestHandler]>([
    ['passed to next', (_req, _res, next) => next(new Error('boom'))],
    [
      'thrown',
      () => {
        throw new Error('boom');
      },
    ],
    [
      'a rejected promise',
      async () => {
        await Promise.resolve();
        throw new Error('boom');
      },
    ],
  ])('hands an error %s to the error handlers, skipping the rest', async (_how, failing) => {
    await withFront(middlewareChain(mark('a'), failing, mark('c')), async (get) => {
      expect(await get('/x')).toEqual({ status: 500, steps: 'a', body: { error: 'boom' } });
    });
  });

  it("goes on after next('route'), as the router does for middleware", async () => {
    const skip: RequestHandler = (_req, _res, next) => next('route');
    await withFront(middlewareChain(mark('a'), skip, mark('c')), async (get) => {
      expect((await get('/x')).steps).toBe('a, c');
    });
  });
});

describe('exactGets: GET routes of exact paths by one lookup', () => {
  const front = middlewareChain(
    exactGets({ '/health': (req, res) => void res.json({ reached: 'health', route: (req.route as { path: string }).path }) }),
    mark('passed'),
  );

  it.each(['/health', '/HEALTH', '/health/', '/health?probe=1'])(
    'answers %s as express routes it (any case, one trailing slash)',
    async (path) => {
      await withFront(front, async (get) => {
        expect(await get(path)).toEqual({ status: 200, steps: null, body: { reached: 'health', route: '/health' } });
      });
    },
  );

  it('answers HEAD too, without a body', async () => {
    await withFront(front, async (get) => {
      expect(await get('/health', 'HEAD')).toEqual({ status: 200, steps: null, body: null });
    });
  });

  it.each([
    ['GET', '/healthz'],
    ['GET', '/health//'],
    ['GET', '/health/x'],
    ['POST', '/health'],
  ])('passes %s %s on', async (method, path) => {
    await withFront(front, async (get) => {
      expect(await get(path, method)).toEqual({ status: 200, steps: 'passed', body: { reached: 'end', route: null } });
    });
  });
});

describe('servePipeline: an express app without its router', () => {
  async function withPipeline(pipeline: Partial<Pipeline>, run: (base: string) => Promise<void>) {
    const app = express();
    app.disable('x-powered-by');
    servePipeline(app, {
      front: middlewareChain(),
      fallthrough: (req, res) => void res.status(404).json({ unmatched: req.path, originalUrl: req.originalUrl, baseUrl: req.baseUrl }),
      onError: (err: Error, _req, res, _next) => void res.status(500).json({ error: err.message }),
      ...pipeline,
    });
    await withListening(app, run);
  }

  it("gives handlers express's request and response (path, query, locals, json)", async () => {
    const front = middlewareChain(
      (req, res, next) => {
        res.locals.seen = req.path;
        next();
      },
      (req, res) => void res.status(201).json({ path: res.locals.seen, query: req.query, app: req.app !== undefined }),
    );
    await withPipeline({ front }, async (base) => {
      const res = await fetch(`${base}/a/b?x=1`);
      expect(res.status).toBe(201);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.headers.get('x-powered-by')).toBeNull();
      expect(await res.json()).toEqual({ path: '/a/b', query: { x: '1' }, app: true });
    });
  });

  it('answers what the front passes on with the fall-through', async () => {
    await withPipeline({}, async (base) => {
      const res = await fetch(`${base}/nowhere?q=1`);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ unmatched: '/nowhere', originalUrl: '/nowhere?q=1', baseUrl: '' });
    });
  });

  it('answers errors of the front and of the fall-through with the error handler', async () => {
    const front = middlewareChain((req, _res, next) => next(req.path === '/front' ? new Error('front failed') : undefined));
    const fallthrough = () => {
      throw new Error('fall-through failed');
    };
    await withPipeline({ front, fallthrough }, async (base) => {
      expect(await (await fetch(`${base}/front`)).json()).toEqual({ error: 'front failed' });
      expect(await (await fetch(`${base}/other`)).json()).toEqual({ error: 'fall-through failed' });
    });
  });

  it('answers a bare 500 when the error handler itself throws, and keeps serving', async () => {
    const front = middlewareChain((_req, _res, next) => next(new Error('boom')));
    const onError = () => {
      throw new Error('handler broke');
    };
    await withPipeline({ front, onError }, async (base) => {
      expect((await fetch(`${base}/x`)).status).toBe(500);
      expect((await fetch(`${base}/y`)).status).toBe(500);
    });
  });

  it('refuses an app that would announce itself with x-powered-by', () => {
    expect(() => servePipeline(express(), { front: middlewareChain(), fallthrough: () => undefined, onError: () => undefined })).toThrow(
      /x-powered-by/,
    );
  });
});

describe("expressMessageClasses: a server whose requests are born express's", () => {
  it("makes requests and responses with the app's prototypes, which the pipeline then keeps", async () => {
    const app = express();
    app.disable('x-powered-by');
    const seen: { bornApps: boolean; node: boolean; sameInHandler?: boolean }[] = [];
    servePipeline(app, {
      front: middlewareChain((req, res) => {
        seen[seen.length - 1]!.sameInHandler = Object.getPrototypeOf(req) === app.request && Object.getPrototypeOf(res) === app.response;
        res.status(201).json({ path: req.path, query: req.query, app: req.app === app });
      }),
      fallthrough: () => undefined,
      onError: (err: Error, _req, res, _next) => void res.status(500).json({ error: err.message }),
    });
    const classes = expressMessageClasses(app);
    await withListening(
      app,
      async (base) => {
        const res = await fetch(`${base}/a/b?x=1`);
        expect(res.status).toBe(201);
        expect(await res.json()).toEqual({ path: '/a/b', query: { x: '1' }, app: true });
        expect(await (await fetch(`${base}/c`, { method: 'POST', body: 'x' })).json()).toEqual({ path: '/c', query: {}, app: true });
      },
      classes,
      (server) =>
        // Before the app runs: the objects the server made.
        server.prependListener('request', (req, res) =>
          seen.push({
            bornApps: Object.getPrototypeOf(req) === app.request && Object.getPrototypeOf(res) === app.response,
            node: req instanceof IncomingMessage && res instanceof ServerResponse,
          }),
        ),
    );
    expect(seen).toEqual([
      { bornApps: true, node: true, sameInHandler: true },
      { bornApps: true, node: true, sameInHandler: true },
    ]);
  });

  it('gives requests from a plain server the same prototypes once they reach the pipeline', async () => {
    const app = express();
    app.disable('x-powered-by');
    servePipeline(app, {
      front: middlewareChain(
        (req, res) => void res.json({ express: Object.getPrototypeOf(req) === app.request && Object.getPrototypeOf(res) === app.response }),
      ),
      fallthrough: () => undefined,
      onError: () => undefined,
    });
    await withListening(app, async (base) => {
      expect(await (await fetch(`${base}/x`)).json()).toEqual({ express: true });
    });
  });
});
