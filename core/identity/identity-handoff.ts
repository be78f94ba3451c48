import type { ForwardedIdentity } from './token-claims';

/**
 * Identity handed from the gateway to the backend when both run in one process: kept in memory against the
 * request object, so no header a client sends can forge it, and taken once.
 */
export interface IdentityHandoff {
  give(request: object, identity: ForwardedIdentity): void;
  take(request: object): ForwardedIdentity | undefined;
}

export function createIdentityHandoff(): IdentityHandoff {
  const identities = new WeakMap<object, ForwardedIdentity>();
  return {
    give: (request, identity) => void identities.set(request, identity),
    take: (request) => {
      const identity = identities.get(request);
      identities.delete(request);
      return identity;
    },
  };
}
