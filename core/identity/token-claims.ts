import type { OrgRole, PlatformRole } from './roles';

export interface OrganizationClaim {
  id: string;
  name: string;
  slug: string;
  role: OrgRole;
}

/** Spec 2.2. The first organization is the active one. */
export interface AccessTokenClaims {
  typ: 'access';
  userId: string;
  email: string;
  platformRole: PlatformRole;
  organizations: OrganizationClaim[];
  iat: number;
  exp: number;
  /** The user's token version at issue; a later bump (revocation) refuses the token. Absent means 0. */
  tokenVersion?: number;
}

/** A refresh token works once (rotation); `fam` ties the rotations together so reuse revokes them all. */
export interface RefreshTokenClaims {
  typ: 'refresh';
  userId: string;
  /** Token id, stored server-side. */
  jti: string;
  /** Token family id. */
  fam: string;
  /** Active organization chosen by switch-org, carried across refreshes. */
  org: string;
  iat: number;
  exp: number;
}

export type TokenClaims = AccessTokenClaims | RefreshTokenClaims;

/** Signs and verifies bearer tokens. Verification fails (returns null) on a bad signature, another algorithm, expiry or the wrong `typ`. */
export interface TokenSigner {
  sign(claims: TokenClaims): string;
  verify<T extends TokenClaims['typ']>(token: string, typ: T): Promise<Extract<TokenClaims, { typ: T }> | null>;
}
export const TOKEN_SIGNER = Symbol.for('TokenSigner');

/** Identity the gateway forwards to backend services after verifying credentials. */
export interface ForwardedIdentity {
  userId: string | null;
  organizationId: string | null;
  email: string | null;
  platformRole: PlatformRole | null;
  orgRole: OrgRole | null;
  apiKeyId: string | null;
  apiKeyScopes: string[];
  clientIp: string;
  /** Token version of the verified access token (null for API keys and anonymous callers). */
  tokenVersion?: number | null;
}

export interface ApiKeyPrincipal {
  keyId: string;
  organizationId: string;
  scopes: string[];
}
