import type { OrgRole } from '../../../core/identity/roles';
import type { User, UserRepository } from '../../../core/identity/user';
import { DomainError } from '../../../core/shared/errors';
import type { DbHandle } from '../db-handle';
import { iso } from './rows';

const toUser = (r: Record<string, unknown>): User => ({
  id: r.id as string,
  email: r.email as string,
  displayName: r.display_name as string,
  passwordHash: (r.password_hash as string | null) ?? null,
  emailVerified: r.email_verified as boolean,
  accountType: r.account_type as User['accountType'],
  platformRole: r.platform_role as User['platformRole'],
  status: r.status as User['status'],
  googleSubject: (r.google_subject as string | null) ?? null,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
  tokenVersion: Number(r.token_version ?? 0),
});

const columns: Record<string, string> = {
  displayName: 'display_name',
  emailVerified: 'email_verified',
  googleSubject: 'google_subject',
  status: 'status',
  platformRole: 'platform_role',
  passwordHash: 'password_hash',
};

export class KnexUserRepository implements UserRepository {
  constructor(private readonly db: DbHandle) {}

  async create(u: User) {
    // Two sign-ups with one email racing past the look-up meet at the unique index: a conflict, not a crash.
    await this.insert(u).catch((e: unknown) => {
      if ((e as { code?: string }).code === '23505')
        throw new DomainError('CONFLICT', 'An account with this email (or Google account) already exists');
      throw e;
    });
  }

  private async insert(u: User) {
    await this.db()('users').insert({
      id: u.id,
      email: u.email,
      display_name: u.displayName,
      password_hash: u.passwordHash,
      email_verified: u.emailVerified,
      account_type: u.accountType,
      platform_role: u.platformRole,
      status: u.status,
      google_subject: u.googleSubject,
      created_at: u.createdAt,
      updated_at: u.updatedAt,
      token_version: u.tokenVersion ?? 0,
    });
  }

  async findById(id: string) {
    const row = await this.db()('users').where({ id }).first();
    return row ? toUser(row) : null;
  }

  async findWithRole(id: string, organizationId: string | null) {
    const row = await this.db()('users as u')
      .leftJoin('memberships as m', (j) => j.on('m.user_id', 'u.id').andOn('m.organization_id', this.db().raw('?', [organizationId])))
      .where('u.id', id)
      .first('u.*', 'm.role as membership_role');
    return row ? { user: toUser(row), role: (row.membership_role as OrgRole | null) ?? null } : null;
  }

  async findByEmail(email: string) {
    const row = await this.db()('users').where({ email: email.toLowerCase() }).first();
    return row ? toUser(row) : null;
  }

  async findByGoogleSubject(subject: string) {
    const row = await this.db()('users').where({ google_subject: subject }).first();
    return row ? toUser(row) : null;
  }

  async update(id: string, patch: Parameters<UserRepository['update']>[1], at: string) {
    const row: Record<string, unknown> = { updated_at: at };
    for (const [k, v] of Object.entries(patch)) if (v !== undefined) row[columns[k]] = v;
    await this.db()('users').where({ id }).update(row);
  }

  async bumpTokenVersion(id: string, at: string) {
    const rows = (await this.db()('users')
      .where({ id })
      .update({ token_version: this.db().raw('token_version + 1'), updated_at: at })
      .returning('token_version')) as { token_version: number }[];
    if (!rows[0]) throw new DomainError('NOT_FOUND', 'User not found');
    return Number(rows[0].token_version);
  }
}
