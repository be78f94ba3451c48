import type { NextFunction, Request, Response } from 'express';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * helmet's headers, worked out once at boot instead of by its chain of middleware on every request: with
 * static options its answer is the same for every request, so it is recorded against a stand-in response and
 * replayed. What helmet would remove (X-Powered-By) is removed too. The set stays exactly helmet's.
 */
export function securityHeaders(options: Readonly<HelmetOptions>) {
  // A directive given as a function (a CSP nonce) is computed per request: such headers cannot be replayed.
  if (hasFunction(options)) throw new Error('helmet options with per-request values cannot be computed once');
  const set: [string, string][] = [];
  const removed: string[] = [];
  const recorder = {
    setHeader: (name: string, value: string) => void set.push([name, String(value)]),
    removeHeader: (name: string) => void removed.push(name),
  };
  let outcome: unknown = 'pending';
  helmet(options)({} as never, recorder as never, (err?: unknown) => (outcome = err));
  if (outcome !== undefined) throw new Error('helmet did not answer synchronously; its headers cannot be computed once');
  const middleware = (_req: Request, res: Response, next: NextFunction): void => {
    for (const name of removed) res.removeHeader(name);
    for (const [name, value] of set) res.setHeader(name, value);
    next();
  };
  /** The (lower-case) names of the headers it sets. */
  return Object.assign(middleware, { names: set.map(([name]) => name.toLowerCase()) });
}

function hasFunction(value: unknown): boolean {
  if (typeof value === 'function') return true;
  if (value === null || typeof value !== 'object') return false;
  return Object.values(value).some(hasFunction);
}
