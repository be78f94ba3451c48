import type { NextFunction, Request, Response, Router } from 'express';

/** The parts of express's router (the `router` package) this index reads: its layers and their routes. */
interface RouteLike {
  path: string;
  methods: Record<string, boolean | undefined>;
  _handlesMethod(method: string): boolean;
  dispatch(req: Request, res: Response, done: (err?: unknown) => void): void;
}
interface LayerLike {
  route?: RouteLike;
  match(path: string): unknown;
}

/** A path with no parameter, wildcard or optional part names exactly one request path. */
const STATIC_PATH = /^[^:*?(){}]*$/;

/**
 * Hands a request for an operation without path parameters straight to its route, instead of the router trying
 * every route registered before it in turn (for the last operations, well over a hundred patterns on every
 * request). Only a method and path no earlier route would claim is indexed, so the route is the one the walk
 * would reach; anything else (HEAD, OPTIONS, a trailing slash, other letter case, a parameterised path) walks as
 * before. Install `middleware` as the router's first layer and call `build` once its routes are registered.
 */
export function staticRouteIndex(router: Router) {
  const index = new Map<string, RouteLike>();
  const middleware = (req: Request, res: Response, next: NextFunction): void => {
    const route = index.get(`${req.method} ${req.path}`);
    if (!route) return next();
    req.params = {};
    // Operation handlers end the exchange or pass an error; one that fell through leaves this router, as the
    // walk would have found nothing else able to answer before it.
    route.dispatch(req, res, (err?: unknown) => next(err ?? 'router'));
  };
  const build = (): void => {
    const layers = (router as unknown as { stack: LayerLike[] }).stack;
    layers.forEach((layer, i) => {
      const route = layer.route;
      if (!route || !STATIC_PATH.test(route.path)) return;
      for (const method of Object.keys(route.methods)) {
        if (method === '_all' || method === 'head' || method === 'options' || !route.methods[method]) continue;
        const key = `${method.toUpperCase()} ${route.path}`;
        const claimedEarlier = layers.slice(0, i).some((l) => l.route && l.route._handlesMethod(method) && l.match(route.path));
        if (!claimedEarlier && !index.has(key)) index.set(key, route);
      }
    });
  };
  return { middleware, build, size: () => index.size };
}
