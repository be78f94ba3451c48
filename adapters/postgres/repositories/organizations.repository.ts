import type { OrgRole } from '../../../core/identity/roles';
import type {
  Invitation,
  InvitationRepository,
  Membership,
  MembershipRepository,
  Organization,
  OrganizationRepository,
} from '../../../core/organizations/organization';
import type { DbHandle } from '../db-handle';
import { iso } from './rows';

const toOrg = (r: Record<string, unknown>): Organization => ({
  id: r.id as string,
  name: r.name as string,
  slug: r.slug as string,
  plan: { seats: r.plan_seats as number, agents: r.plan_agents as number, knowledgeBases: r.plan_knowledge_bases as number },
  createdAt: iso(r.created_at),
});

export class KnexOrganizationRepository implements OrganizationRepository {
  constructor(private readonly db: DbHandle) {}

  async create(o: Organization) {
    await this.db()('organizations').insert({
      id: o.id,
      name: o.name,
      slug: o.slug,
      plan_seats: o.plan.seats,
      plan_agents: o.plan.agents,
      plan_knowledge_bases: o.plan.knowledgeBases,
      created_at: o.createdAt,
    });
  }

  async findById(id: string) {
    const r = await this.db()('organizations').where({ id }).first();
    return r ? toOrg(r) : null;
  }

  async slugExists(slug: string) {
    return !!(await this.db()('organizations').where({ slug }).first('id'));
  }

  async list(page: { limit: number; offset: number }) {
    const rows = await this.db()('organizations')
      .orderBy([{ column: 'created_at' }, { column: 'id' }])
      .limit(page.limit)
      .offset(page.offset);
    const counted = await this.db()('organizations').count<{ n: string | number }[]>({ n: '*' });
    return { items: rows.map(toOrg), total: Number(counted[0]?.n ?? 0) };
  }
}

export class KnexMembershipRepository implements MembershipRepository {
  constructor(private readonly db: DbHandle) {}

  async add(m: Membership) {
    await this.db()('memberships').insert({ organization_id: m.organizationId, user_id: m.userId, role: m.role, created_at: m.createdAt });
  }

  async find(organizationId: string, userId: string) {
    const r = await this.db()('memberships').where({ organization_id: organizationId, user_id: userId }).first();
    return r ? { organizationId, userId, role: r.role as OrgRole, createdAt: iso(r.created_at) } : null;
  }

  async listForUser(userId: string) {
    const rows = await this.db()('memberships as m')
      .join('organizations as o', 'o.id', 'm.organization_id')
      .where('m.user_id', userId)
      .orderBy('m.created_at', 'asc')
      .select('m.role', 'm.created_at as joined_at', 'o.*');
    return rows.map((r) => ({
      organizationId: r.id,
      userId,
      role: r.role as OrgRole,
      createdAt: iso(r.joined_at),
      organization: toOrg(r),
    }));
  }

  async listMembers(organizationId: string) {
    const rows = await this.db()('memberships as m')
      .join('users as u', 'u.id', 'm.user_id')
      .where('m.organization_id', organizationId)
      .orderBy('m.created_at', 'asc')
      .select('u.id', 'u.email', 'u.display_name', 'm.role');
    return rows.map((r) => ({ userId: r.id, email: r.email, displayName: r.display_name, role: r.role as OrgRole }));
  }

  async count(organizationId: string) {
    const [{ n }] = await this.db()('memberships').where({ organization_id: organizationId }).count({ n: '*' });
    return Number(n);
  }

  async countWithRole(organizationId: string, role: OrgRole) {
    const [{ n }] = await this.db()('memberships').where({ organization_id: organizationId, role }).count({ n: '*' });
    return Number(n);
  }

  async updateRole(organizationId: string, userId: string, role: OrgRole) {
    await this.db()('memberships').where({ organization_id: organizationId, user_id: userId }).update({ role });
  }

  async remove(organizationId: string, userId: string) {
    await this.db()('memberships').where({ organization_id: organizationId, user_id: userId }).delete();
  }
}

const toInvitation = (r: Record<string, unknown>): Invitation => ({
  id: r.id as string,
  organizationId: r.organization_id as string,
  email: r.email as string,
  role: r.role as OrgRole,
  status: r.status as Invitation['status'],
  tokenHash: r.token_hash as string,
  invitedBy: r.invited_by as string,
  expiresAt: iso(r.expires_at),
  createdAt: iso(r.created_at),
});

export class KnexInvitationRepository implements InvitationRepository {
  constructor(private readonly db: DbHandle) {}

  async create(i: Invitation) {
    await this.db()('invitations').insert({
      id: i.id,
      organization_id: i.organizationId,
      email: i.email,
      role: i.role,
      status: i.status,
      token_hash: i.tokenHash,
      invited_by: i.invitedBy,
      expires_at: i.expiresAt,
      created_at: i.createdAt,
    });
  }

  async findById(organizationId: string, id: string) {
    const r = await this.db()('invitations').where({ id, organization_id: organizationId }).first();
    return r ? toInvitation(r) : null;
  }

  async findByTokenHash(tokenHash: string) {
    const r = await this.db()('invitations').where({ token_hash: tokenHash }).first();
    return r ? toInvitation(r) : null;
  }

  async listForOrganization(organizationId: string) {
    const rows = await this.db()('invitations').where({ organization_id: organizationId }).orderBy('created_at', 'desc');
    return rows.map(toInvitation);
  }

  async countPending(organizationId: string, now: string) {
    const [{ n }] = await this.db()('invitations')
      .where({ organization_id: organizationId, status: 'pending' })
      .where('expires_at', '>', now)
      .count({ n: '*' });
    return Number(n);
  }

  async setStatus(id: string, status: Invitation['status']) {
    await this.db()('invitations').where({ id }).update({ status });
  }

  async lockOrganization(organizationId: string) {
    await this.db()('organizations').where({ id: organizationId }).forUpdate().first('id');
  }
}
