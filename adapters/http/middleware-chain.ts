import { IncomingMessage, type ServerOptions, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

import type { ErrorRequestHandler, Express, NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Middleware run one after another as a single express layer. Every request passes the api's fixed front
 * (security headers, request id and log, metrics, signature, CORS); as separate layers, express's router
 * matched each one's path and rebuilt its state between them, which cost about a tenth of the main thread's
 * CPU on a cheap GET. Behaves as the router would for middleware mounted at `/`: `next()` and `next('route')`
 * go on, `next(x)` with anything else (an error, 'router') leaves the chain with it, and a handler that throws
 * or returns a promise that rejects passes its error on.
 */
export function middlewareChain(...handlers: RequestHandler[]): RequestHandler {
  return (req: Request, res: Response, done: NextFunction) => chainStep(handlers, req, res, done)();
}

/**
 * The `next` of one request's walk along `handlers`. Assigned to a property, not bound to a name: under tsx,
 * esbuild's keepNames gives every closure bound to a name that name with a defineProperty (and the function a
 * new map), on every request.
 */
function chainStep(handlers: RequestHandler[], req: Request, res: Response, done: NextFunction): (signal?: unknown) => void {
  let index = 0;
  const walk = { next: done as (signal?: unknown) => void };
  walk.next = (signal?: unknown): void => {
    if (signal && signal !== 'route') return done(signal);
    const handler = handlers[index++];
    if (!handler) return done();
    try {
      const returned: unknown = handler(req, res, walk.next);
      if (returned instanceof Promise) returned.catch((e: unknown) => done(e ?? new Error('Rejected promise')));
    } catch (e) {
      done(e);
    }
  };
  return walk.next;
}

/**
 * GET (and HEAD) handlers of exact paths, found by one lookup instead of one router layer each. Paths compare
 * as express compares them: ignoring case, with one trailing slash allowed.
 */
export function exactGets(routes: Record<string, RequestHandler>): RequestHandler {
  const table = new Map(Object.entries(routes).map(([path, handler]) => [path.toLowerCase(), { path, handler }]));
  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const path = req.path.length > 1 && req.path.endsWith('/') ? req.path.slice(0, -1) : req.path;
    const route = table.get(path.toLowerCase());
    if (!route) return next();
    req.route = { path: route.path }; // what a matched route gives request logs and metrics
    return route.handler(req, res, next);
  };
}

export interface Pipeline {
  /** Every request goes through it (a middlewareChain). */
  front: RequestHandler;
  /** Answers a request the front passed on. */
  fallthrough(req: Request, res: Response): void;
  /** Answers an error from either (should it throw, a bare 500). */
  onError: ErrorRequestHandler;
}

/**
 * Makes `app` serve `pipeline` alone: express's own entry (the request and response prototypes, `res.locals`,
 * the circular references) without its router, which had only the front, the fall-through answer and the
 * error handler to walk and cost about 6% of the main thread's CPU on a cheap GET. `app` keeps its settings
 * and `listen`; it must not use `app.use`/`app.get` (nothing would reach them) nor `x-powered-by`.
 */
export function servePipeline(app: Express, pipeline: Pipeline): void {
  if (app.enabled('x-powered-by')) throw new Error('servePipeline: disable x-powered-by');
  const handle = (req: Request, res: Response): void => {
    req.res = res;
    res.req = req;
    // Objects made by a server of expressMessageClasses(app) are born with these prototypes: changing an
    // object's prototype after the fact sends every later property access on it down V8's slow paths.
    if (Object.getPrototypeOf(req) !== app.request) Object.setPrototypeOf(req, app.request);
    if (Object.getPrototypeOf(res) !== app.response) Object.setPrototypeOf(res, app.response);
    if (!res.locals) res.locals = Object.create(null) as Response['locals'];
    req.originalUrl ||= req.url;
    req.baseUrl = '';
    pipeline.front(req, res, (signal?: unknown) => {
      if (signal && signal !== 'route' && signal !== 'router') return answerError(pipeline, signal, req, res);
      try {
        pipeline.fallthrough(req, res);
      } catch (e) {
        answerError(pipeline, e, req, res);
      }
    });
  };
  (app as unknown as { handle: typeof handle }).handle = handle;
}

function answerError(pipeline: Pipeline, err: unknown, req: Request, res: Response): void {
  try {
    pipeline.onError(err, req, res, () => res.end());
  } catch {
    // The last resort express's final handler was: a bare 500, or a cut connection mid-answer.
    if (res.headersSent) return void res.destroy();
    res.statusCode = 500;
    res.end();
  }
}

/** What `http.createServer(options)` takes to make its requests and responses with other constructors. */
export type MessageClasses = Required<Pick<ServerOptions, 'IncomingMessage' | 'ServerResponse'>>;

type NodeConstructor = (this: unknown, ...args: unknown[]) => void;

/**
 * Node's request and response constructors, with `app`'s request and response as their objects' prototypes
 * (which extend node's own): a server made with them hands `app` objects it need not re-prototype. Changing
 * the prototypes of every request's two objects cost about as much CPU as the rest of a cheap GET (V8 gives
 * each a new map, and node's http code then misses its inline caches on them).
 */
export function expressMessageClasses(app: Express): MessageClasses {
  function AppRequest(this: unknown, socket: Socket) {
    (IncomingMessage as unknown as NodeConstructor).call(this, socket);
  }
  AppRequest.prototype = app.request;
  function AppResponse(this: unknown, req: IncomingMessage, options?: unknown) {
    (ServerResponse as unknown as NodeConstructor).call(this, req, options);
  }
  AppResponse.prototype = app.response;
  return {
    IncomingMessage: AppRequest as unknown as typeof IncomingMessage,
    ServerResponse: AppResponse as unknown as typeof ServerResponse,
  };
}
