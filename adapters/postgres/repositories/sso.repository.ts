import type {
  SsoIdentityRepository,
  SsoProvider,
  SsoProviderRepository,
  SsoStateRecord,
  SsoStateRepository,
} from '../../../core/identity/sso/sso-provider';
import type { DbHandle } from '../db-handle';
import { iso } from './rows';

const json = (v: unknown): unknown => (typeof v === 'string' ? JSON.parse(v) : v);

const toProvider = (r: Record<string, unknown>): SsoProvider => ({
  id: r.id as string,
  slug: r.slug as string,
  name: r.name as string,
  preset: r.preset as SsoProvider['preset'],
  issuerUrl: r.issuer_url as string,
  clientId: r.client_id as string,
  clientSecret: r.client_secret as string,
  allowedEmailDomains: json(r.allowed_email_domains) as string[],
  organizationId: r.organization_id as string,
  defaultRole: r.default_role as SsoProvider['defaultRole'],
  groupClaim: (r.group_claim as string | null) ?? null,
  groupRoles: json(r.group_roles) as SsoProvider['groupRoles'],
  enabled: r.enabled as boolean,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

const toRow = (p: SsoProvider) => ({
  id: p.id,
  slug: p.slug,
  name: p.name,
  preset: p.preset,
  issuer_url: p.issuerUrl,
  client_id: p.clientId,
  client_secret: p.clientSecret,
  allowed_email_domains: JSON.stringify(p.allowedEmailDomains),
  organization_id: p.organizationId,
  default_role: p.defaultRole,
  group_claim: p.groupClaim,
  group_roles: JSON.stringify(p.groupRoles),
  enabled: p.enabled,
  created_at: p.createdAt,
  updated_at: p.updatedAt,
});

export class KnexSsoProviderRepository implements SsoProviderRepository {
  constructor(private readonly db: DbHandle) {}

  async create(p: SsoProvider) {
    await this.db()('sso_providers').insert(toRow(p));
  }

  async findById(id: string) {
    const r = await this.db()('sso_providers').where({ id }).first();
    return r ? toProvider(r) : null;
  }

  async findBySlug(slug: string) {
    const r = await this.db()('sso_providers').where({ slug }).first();
    return r ? toProvider(r) : null;
  }

  async list() {
    return (await this.db()('sso_providers').orderBy([{ column: 'created_at' }, { column: 'id' }])).map(toProvider);
  }

  async update(p: SsoProvider) {
    const { id, created_at: _created, ...row } = toRow(p);
    await this.db()('sso_providers').where({ id }).update(row);
  }

  async delete(id: string) {
    return (await this.db()('sso_providers').where({ id }).delete()) > 0;
  }
}

export class KnexSsoIdentityRepository implements SsoIdentityRepository {
  constructor(private readonly db: DbHandle) {}

  async findUserId(providerId: string, subject: string) {
    const r = await this.db()('sso_identities').where({ provider_id: providerId, subject }).first('user_id');
    return (r?.user_id as string | undefined) ?? null;
  }

  async link(l: { providerId: string; subject: string; userId: string; createdAt: string }) {
    await this.db()('sso_identities').insert({ provider_id: l.providerId, subject: l.subject, user_id: l.userId, created_at: l.createdAt });
  }
}

export class KnexSsoStateRepository implements SsoStateRepository {
  constructor(private readonly db: DbHandle) {}

  async create(r: SsoStateRecord) {
    await this.db()('sso_states').insert({
      state: r.state,
      provider_id: r.providerId,
      code_verifier: r.codeVerifier,
      nonce: r.nonce,
      expires_at: r.expiresAt,
      user_id: r.userId,
    });
  }

  async take(state: string) {
    const [r] = await this.db()('sso_states').where({ state }).delete().returning('*');
    return r
      ? {
          state: r.state,
          providerId: r.provider_id,
          codeVerifier: r.code_verifier,
          nonce: r.nonce,
          expiresAt: iso(r.expires_at),
          userId: (r.user_id as string | null) ?? null,
        }
      : null;
  }
}
