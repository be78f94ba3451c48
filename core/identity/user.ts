import type { OrgRole, PlatformRole } from './roles';

export type UserStatus = 'active' | 'suspended';
export type AccountType = 'password' | 'google' | 'sso';

export interface User {
  id: string;
  email: string;
  displayName: string;
  passwordHash: string | null;
  emailVerified: boolean;
  accountType: AccountType;
  platformRole: PlatformRole;
  status: UserStatus;
  googleSubject: string | null;
  createdAt: string;
  updatedAt: string;
  /** Access tokens issued under an older version are refused (0 for a new account). */
  tokenVersion?: number;
}

export interface UserRepository {
  create(user: User): Promise<void>;
  findById(id: string): Promise<User | null>;
  /** The user and their role in `organizationId` (null when not a member), in one read: runs on every request. */
  findWithRole(id: string, organizationId: string | null): Promise<{ user: User; role: OrgRole | null } | null>;
  findByEmail(email: string): Promise<User | null>;
  findByGoogleSubject(subject: string): Promise<User | null>;
  update(
    id: string,
    patch: Partial<Pick<User, 'displayName' | 'emailVerified' | 'googleSubject' | 'status' | 'platformRole' | 'passwordHash'>>,
    at: string,
  ): Promise<void>;
  /** Refuses every access token issued so far (the version goes up by one); returns the new version. */
  bumpTokenVersion(id: string, at: string): Promise<number>;
}

export interface RefreshTokenRecord {
  id: string;
  familyId: string;
  userId: string;
  activeOrganizationId: string | null;
  expiresAt: string;
  usedAt: string | null;
  revokedAt: string | null;
  createdAt: string;
}

export interface RefreshTokenRepository {
  create(record: RefreshTokenRecord): Promise<void>;
  findById(id: string): Promise<RefreshTokenRecord | null>;
  /** Marks the token used; false when it was already used or revoked (so two concurrent refreshes cannot both win). */
  markUsed(id: string, at: string): Promise<boolean>;
  revokeFamily(familyId: string, at: string): Promise<void>;
  revokeAllForUser(userId: string, at: string): Promise<void>;
}

export interface OAuthStateRecord {
  state: string;
  codeVerifier: string;
  redirectTo: string | null;
  expiresAt: string;
}

export interface OAuthStateRepository {
  create(record: OAuthStateRecord): Promise<void>;
  /** Returns and deletes the state (single use). */
  take(state: string): Promise<OAuthStateRecord | null>;
}
