import type { NextFunction, Request, Response } from 'express';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * helmet's headers, worked out once at boot instead of by its chain of middleware on every request: with
 * static options its answer is the same for every request, so it is recorded against a stand-in response and
 * replayed. What helmet would remove (X-Powered-By) is removed too. The set stays exactly helmet's.
 */
export function securityHeaders(options: Readonly<HelmetOptions>) {
  const set: [string, string][] = [];
  const removed: string[] = [];
  const recorder = {
    setHeader: (name: string, value: string) => void set.push([name, String(value)]),
    removeHeader: (name: string) => void removed.push(name),
  };
  let synchronous = false;
  helmet(options)({} as never, recorder as never, () => (synchronous = true));
  // A helmet that answered asynchronously or per request (a CSP nonce function) could not be replayed.
  if (!synchronous) throw new Error('helmet did not answer synchronously; its headers cannot be computed once');
  return (_req: Request, res: Response, next: NextFunction): void => {
    for (const name of removed) res.removeHeader(name);
    for (const [name, value] of set) res.setHeader(name, value);
    next();
  };
}
