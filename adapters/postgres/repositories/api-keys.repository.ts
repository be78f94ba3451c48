import type { ApiKey, ApiKeyRepository } from '../../../core/api-keys/api-key';
import type { DbHandle } from '../db-handle';
import { iso, isoOrNull } from './rows';

const toKey = (r: Record<string, unknown>): ApiKey => ({
  id: r.id as string,
  organizationId: r.organization_id as string,
  name: r.name as string,
  scopes: r.scopes as ApiKey['scopes'],
  prefix: r.prefix as string,
  secretHash: r.secret_hash as string,
  createdBy: r.created_by as string,
  createdAt: iso(r.created_at),
  lastUsedAt: isoOrNull(r.last_used_at),
  revokedAt: isoOrNull(r.revoked_at),
});

export class KnexApiKeyRepository implements ApiKeyRepository {
  constructor(private readonly db: DbHandle) {}

  async create(k: ApiKey) {
    await this.db()('api_keys').insert({
      id: k.id,
      organization_id: k.organizationId,
      name: k.name,
      scopes: k.scopes,
      prefix: k.prefix,
      secret_hash: k.secretHash,
      created_by: k.createdBy,
      created_at: k.createdAt,
      last_used_at: k.lastUsedAt,
      revoked_at: k.revokedAt,
    });
  }

  async findBySecretHash(hash: string) {
    const r = await this.db()('api_keys').where({ secret_hash: hash }).first();
    return r ? toKey(r) : null;
  }

  async findById(organizationId: string, id: string) {
    const r = await this.db()('api_keys').where({ id, organization_id: organizationId }).first();
    return r ? toKey(r) : null;
  }

  async listForOrganization(organizationId: string) {
    const rows = await this.db()('api_keys')
      .where({ organization_id: organizationId })
      .whereNull('revoked_at')
      .orderBy('created_at', 'desc');
    return rows.map(toKey);
  }

  async revoke(organizationId: string, id: string, at: string) {
    const n = await this.db()('api_keys').where({ id, organization_id: organizationId }).whereNull('revoked_at').update({ revoked_at: at });
    return n === 1;
  }

  async touch(id: string, at: string) {
    await this.db()('api_keys').where({ id }).update({ last_used_at: at });
  }
}
