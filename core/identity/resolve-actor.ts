import type { Store } from '../ports/store';
import { DomainError } from '../shared/errors';
import type { Actor } from './actor';
import type { ForwardedIdentity } from './token-claims';

/**
 * Builds the actor of a request from the gateway's verified identity. The role comes from the store, not
 * the token, so a removed member or a changed role takes effect at once.
 */
export async function resolveActor(store: Store, identity: ForwardedIdentity): Promise<Actor | null> {
  if (!identity.userId) return null;
  const user = await store.repos.users.findById(identity.userId);
  if (!user) return null;
  if (user.status !== 'active') throw new DomainError('ACCOUNT_SUSPENDED', 'This account is suspended');
  const membership = identity.organizationId ? await store.repos.memberships.find(identity.organizationId, user.id) : null;
  return {
    userId: user.id,
    email: user.email,
    displayName: user.displayName,
    platformRole: user.platformRole,
    organizationId: membership ? membership.organizationId : null,
    orgRole: membership?.role ?? null,
  };
}
