import type { ForwardedIdentity } from './token-claims';

/**
 * Identity handed from the gateway to the backend when both run in one process: kept in memory against the
 * request object, so no header a client sends can forge it, and taken once. A body the gateway has already
 * read travels with it (the request's stream is spent by then).
 */
export interface HandedRequest {
  identity: ForwardedIdentity;
  body: Uint8Array | null;
}

export interface IdentityHandoff {
  give(request: object, identity: ForwardedIdentity, body?: Uint8Array): void;
  take(request: object): HandedRequest | undefined;
}

export function createIdentityHandoff(): IdentityHandoff {
  const handed = new WeakMap<object, HandedRequest>();
  return {
    give: (request, identity, body) => void handed.set(request, { identity, body: body ?? null }),
    take: (request) => {
      const found = handed.get(request);
      handed.delete(request);
      return found;
    },
  };
}
