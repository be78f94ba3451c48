import type { GroupRepository, GroupRestrictedAgent, GroupView, UserGroup } from '../../../core/organizations/group';
import { DomainError } from '../../../core/shared/errors';
import type { DbHandle } from '../db-handle';
import { iso } from './rows';

const toView = (r: Record<string, unknown>): GroupView => ({
  id: r.id as string,
  name: r.name as string,
  memberCount: Number(r.member_count ?? 0),
  createdAt: iso(r.created_at),
});

export class KnexGroupRepository implements GroupRepository {
  constructor(private readonly db: DbHandle) {}

  private withCounts(organizationId: string) {
    return this.db()('user_groups as g')
      .leftJoin('user_group_members as m', 'm.group_id', 'g.id')
      .where('g.organization_id', organizationId)
      .groupBy('g.id')
      .select('g.id', 'g.name', 'g.created_at', this.db().raw('count(m.user_id)::int as member_count'));
  }

  async create(g: UserGroup) {
    try {
      await this.db()('user_groups').insert({
        id: g.id,
        organization_id: g.organizationId,
        name: g.name,
        created_by: g.createdBy,
        created_at: g.createdAt,
      });
    } catch (e) {
      if ((e as { code?: string }).code === '23505') throw new DomainError('CONFLICT', `A group named "${g.name}" already exists`);
      throw e;
    }
  }

  async find(organizationId: string, id: string) {
    const r = await this.withCounts(organizationId).andWhere('g.id', id).first();
    return r ? toView(r) : null;
  }

  async list(organizationId: string) {
    const rows = await this.withCounts(organizationId).orderBy([{ column: 'g.created_at' }, { column: 'g.id' }]);
    return rows.map(toView);
  }

  async delete(organizationId: string, id: string) {
    return (await this.db()('user_groups').where({ organization_id: organizationId, id }).delete()) > 0;
  }

  async addMember(organizationId: string, groupId: string, userId: string, at: string) {
    await this.db()('user_group_members')
      .insert({ group_id: groupId, user_id: userId, organization_id: organizationId, added_at: at })
      .onConflict(['group_id', 'user_id'])
      .ignore();
  }

  async removeMember(organizationId: string, groupId: string, userId: string) {
    return (
      (await this.db()('user_group_members').where({ organization_id: organizationId, group_id: groupId, user_id: userId }).delete()) > 0
    );
  }

  async listMembers(organizationId: string, groupId: string) {
    const rows = await this.db()('user_group_members as m')
      .join('users as u', 'u.id', 'm.user_id')
      .where({ 'm.organization_id': organizationId, 'm.group_id': groupId })
      .orderBy([{ column: 'm.added_at' }, { column: 'u.id' }])
      .select('u.id', 'u.email', 'u.display_name', 'm.added_at');
    return rows.map((r) => ({
      userId: r.id as string,
      email: r.email as string,
      displayName: r.display_name as string,
      addedAt: iso(r.added_at),
    }));
  }

  async isMemberOfAny(organizationId: string, groupIds: readonly string[], userId: string) {
    const uuids = groupIds.filter((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id));
    if (uuids.length === 0) return false;
    const r = await this.db()('user_group_members')
      .where({ organization_id: organizationId, user_id: userId })
      .whereIn('group_id', uuids)
      .first('group_id');
    return !!r;
  }

  async removeUser(organizationId: string, userId: string) {
    return this.db()('user_group_members').where({ organization_id: organizationId, user_id: userId }).delete();
  }

  async agentsRestrictedTo(organizationId: string, groupId: string): Promise<GroupRestrictedAgent[]> {
    const rows = await this.db()('agents')
      .where({ organization_id: organizationId })
      .whereRaw(`jsonb_typeof(distribution->'allowed_group_ids') = 'array'`)
      .whereRaw(`distribution->'allowed_group_ids' @> ?::jsonb`, [JSON.stringify([groupId])])
      .select('id', 'distribution');
    return rows.map((r) => {
      const d = (r.distribution ?? {}) as { allowed_group_ids?: unknown; require_org_membership?: unknown };
      return {
        agentId: r.id as string,
        allowedGroupIds: Array.isArray(d.allowed_group_ids) ? d.allowed_group_ids.map(String) : [],
        requireOrgMembership: d.require_org_membership === true,
      };
    });
  }
}
