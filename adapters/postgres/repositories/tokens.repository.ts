import type { OAuthStateRecord, OAuthStateRepository, RefreshTokenRecord, RefreshTokenRepository } from '../../../core/identity/user';
import type { DbHandle } from '../db-handle';
import { iso, isoOrNull } from './rows';

export class KnexRefreshTokenRepository implements RefreshTokenRepository {
  constructor(private readonly db: DbHandle) {}

  async create(r: RefreshTokenRecord) {
    await this.db()('refresh_tokens').insert({
      id: r.id,
      family_id: r.familyId,
      user_id: r.userId,
      active_organization_id: r.activeOrganizationId,
      expires_at: r.expiresAt,
      used_at: r.usedAt,
      revoked_at: r.revokedAt,
      created_at: r.createdAt,
    });
  }

  async findById(id: string) {
    const r = await this.db()('refresh_tokens').where({ id }).first();
    if (!r) return null;
    return {
      id: r.id,
      familyId: r.family_id,
      userId: r.user_id,
      activeOrganizationId: r.active_organization_id,
      expiresAt: iso(r.expires_at),
      usedAt: isoOrNull(r.used_at),
      revokedAt: isoOrNull(r.revoked_at),
      createdAt: iso(r.created_at),
    };
  }

  async markUsed(id: string, at: string) {
    const n = await this.db()('refresh_tokens').where({ id }).whereNull('used_at').whereNull('revoked_at').update({ used_at: at });
    return n === 1;
  }

  async revokeFamily(familyId: string, at: string) {
    await this.db()('refresh_tokens').where({ family_id: familyId }).whereNull('revoked_at').update({ revoked_at: at });
  }

  async revokeAllForUser(userId: string, at: string) {
    await this.db()('refresh_tokens').where({ user_id: userId }).whereNull('revoked_at').update({ revoked_at: at });
  }
}

export class KnexOAuthStateRepository implements OAuthStateRepository {
  constructor(private readonly db: DbHandle) {}

  async create(r: OAuthStateRecord) {
    await this.db()('oauth_states').insert({
      state: r.state,
      code_verifier: r.codeVerifier,
      redirect_to: r.redirectTo,
      expires_at: r.expiresAt,
    });
  }

  async take(state: string) {
    const [r] = await this.db()('oauth_states').where({ state }).delete().returning('*');
    return r ? { state: r.state, codeVerifier: r.code_verifier, redirectTo: r.redirect_to, expiresAt: iso(r.expires_at) } : null;
  }
}
