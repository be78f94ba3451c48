import type { Store } from '../ports/store';
import { DomainError } from '../shared/errors';
import type { Actor } from './actor';
import type { ForwardedIdentity } from './token-claims';

/**
 * Builds the actor of a request from the gateway's verified identity. The role comes from the store, not
 * the token, so a removed member or a changed role takes effect at once; so does a revocation (the user's
 * token version against the one the token was issued under).
 */
export async function resolveActor(store: Store, identity: ForwardedIdentity): Promise<Actor | null> {
  if (!identity.userId) return null;
  const found = await store.repos.users.findWithRole(identity.userId, identity.organizationId);
  if (!found) return null;
  const { user, role } = found;
  if (user.status !== 'active') throw new DomainError('ACCOUNT_SUSPENDED', 'This account is suspended');
  // Tokens issued before the last revocation (refresh-token reuse, password change, suspension) are refused.
  if ((identity.tokenVersion ?? 0) < (user.tokenVersion ?? 0)) {
    throw new DomainError('AUTHENTICATION_FAILED', 'This access token has been revoked; sign in again');
  }
  return {
    userId: user.id,
    email: user.email,
    displayName: user.displayName,
    platformRole: user.platformRole,
    organizationId: role ? identity.organizationId : null,
    orgRole: role,
  };
}
