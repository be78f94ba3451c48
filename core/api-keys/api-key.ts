export const API_KEY_SCOPES = ['agents:write', 'contacts:read'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

export interface ApiKey {
  id: string;
  organizationId: string;
  name: string;
  scopes: ApiKeyScope[];
  prefix: string;
  secretHash: string;
  createdBy: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface ApiKeyRepository {
  create(key: ApiKey): Promise<void>;
  findBySecretHash(hash: string): Promise<ApiKey | null>;
  findById(organizationId: string, id: string): Promise<ApiKey | null>;
  listForOrganization(organizationId: string): Promise<ApiKey[]>;
  revoke(organizationId: string, id: string, at: string): Promise<boolean>;
  touch(id: string, at: string): Promise<void>;
}
