import type { Request, Response } from 'express';

import type { Operation } from '../../contracts/operation';

/** An operation's path as a regular expression: `:name` segments match one path segment. */
function pathPattern(path: string): RegExp {
  const source = path
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}/?$`);
}

/**
 * The answer for a request no operation took: 405 with `Allow` when the path exists under other methods
 * (a wrong method is not a missing resource), 404 otherwise.
 */
export function unmatchedRoute(operations: Operation[]) {
  const routes = operations.map((o) => ({ method: o.method.toUpperCase(), pattern: pathPattern(o.path) }));
  return (req: Request, res: Response): void => {
    const methods = new Set(routes.filter((r) => r.pattern.test(req.path)).map((r) => r.method));
    if (methods.size === 0) {
      res.status(404).json({ error: 'Not Found', message: `No route for ${req.method} ${req.path}`, code: 'NOT_FOUND' });
      return;
    }
    if (methods.has('GET')) methods.add('HEAD');
    const allow = [...methods].sort().join(', ');
    res.setHeader('Allow', allow);
    res.status(405).json({
      error: 'Method Not Allowed',
      message: `${req.method} is not allowed on ${req.path}; allowed: ${allow}`,
      code: 'METHOD_NOT_ALLOWED',
    });
  };
}
