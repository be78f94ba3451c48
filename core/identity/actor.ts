import type { OrgRole, PlatformRole } from './roles';

/** A verified, signed-in user acting in their active organization. */
export interface Actor {
  userId: string;
  email: string;
  displayName: string;
  platformRole: PlatformRole;
  /** Active organization; null when the user has none. */
  organizationId: string | null;
  /** Role in the active organization, read from the store on every request (never trusted from the token). */
  orgRole: OrgRole | null;
}

/** A caller authenticated by an organization API key. */
export interface ApiKeyActor {
  keyId: string;
  organizationId: string;
  scopes: string[];
}
