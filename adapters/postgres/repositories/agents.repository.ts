import type { Agent, AgentGrant, AgentPatch, AgentRepository } from '../../../core/agents/agent';
import type { ResourcePermission } from '../../../core/identity/policy';
import { DomainError } from '../../../core/shared/errors';
import type { DbHandle } from '../db-handle';
import { iso, isoOrNull } from './rows';

const json = (v: unknown) => (v == null ? null : JSON.stringify(v));

const toAgent = (r: Record<string, unknown>): Agent => ({
  id: r.id as string,
  organizationId: r.organization_id as string,
  name: r.name as string,
  description: r.description as string,
  model: r.model as string,
  systemPrompt: (r.system_prompt as string | null) ?? null,
  isDraft: r.is_draft as boolean,
  status: r.status as Agent['status'],
  streamingEnabled: r.streaming_enabled as boolean,
  fileUploadsEnabled: r.file_uploads_enabled as boolean,
  voiceEnabled: r.voice_enabled as boolean,
  voiceSettings: (r.voice_settings as Agent['voiceSettings']) ?? null,
  multimodalConfig: (r.multimodal_config as Agent['multimodalConfig']) ?? null,
  tools: (r.tools as Agent['tools']) ?? [],
  templateVariables: (r.template_variables as Agent['templateVariables']) ?? [],
  slug: (r.slug as string | null) ?? null,
  distribution: (r.distribution as Agent['distribution']) ?? null,
  reviewFeedback: (r.review_feedback as string | null) ?? null,
  submittedAt: isoOrNull(r.submitted_at),
  reviewedBy: (r.reviewed_by as string | null) ?? null,
  reviewedAt: isoOrNull(r.reviewed_at),
  publishedAt: isoOrNull(r.published_at),
  createdBy: r.created_by as string,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
  deletedAt: isoOrNull(r.deleted_at),
});

const columns: Record<string, [string, boolean]> = {
  name: ['name', false],
  description: ['description', false],
  model: ['model', false],
  systemPrompt: ['system_prompt', false],
  isDraft: ['is_draft', false],
  status: ['status', false],
  streamingEnabled: ['streaming_enabled', false],
  fileUploadsEnabled: ['file_uploads_enabled', false],
  voiceEnabled: ['voice_enabled', false],
  voiceSettings: ['voice_settings', true],
  multimodalConfig: ['multimodal_config', true],
  tools: ['tools', true],
  templateVariables: ['template_variables', true],
  slug: ['slug', false],
  distribution: ['distribution', true],
  reviewFeedback: ['review_feedback', false],
  submittedAt: ['submitted_at', false],
  reviewedBy: ['reviewed_by', false],
  reviewedAt: ['reviewed_at', false],
  publishedAt: ['published_at', false],
  updatedAt: ['updated_at', false],
  deletedAt: ['deleted_at', false],
};

function toRow(patch: Record<string, unknown>) {
  const row: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(patch)) {
    const col = columns[k];
    if (col && v !== undefined) row[col[0]] = col[1] ? json(v) : v;
  }
  return row;
}

export class KnexAgentRepository implements AgentRepository {
  constructor(private readonly db: DbHandle) {}

  async create(a: Agent) {
    await this.db()('agents').insert({
      id: a.id,
      organization_id: a.organizationId,
      created_by: a.createdBy,
      created_at: a.createdAt,
      ...toRow(a as unknown as Record<string, unknown>),
    });
  }

  async findById(organizationId: string, id: string, options: { includeDeleted?: boolean } = {}) {
    const q = this.db()('agents').where({ id, organization_id: organizationId });
    if (!options.includeDeleted) q.whereNull('deleted_at');
    const r = await q.first();
    return r ? toAgent(r) : null;
  }

  async lockForUpdate(organizationId: string, id: string) {
    const r = await this.db()('agents').where({ id, organization_id: organizationId }).whereNull('deleted_at').forUpdate().first();
    return r ? toAgent(r) : null;
  }

  async lockOrganization(organizationId: string) {
    await this.db()('organizations').where({ id: organizationId }).forUpdate().first('id');
  }

  async findBySlug(slug: string) {
    const r = await this.db()('agents').where({ slug }).whereNull('deleted_at').first();
    return r ? toAgent(r) : null;
  }

  async list(organizationId: string, page: { limit: number; offset: number }) {
    const base = () => this.db()('agents').where({ organization_id: organizationId }).whereNull('deleted_at');
    const [{ n }] = await base().count({ n: '*' });
    const rows = await base().orderBy('created_at', 'desc').orderBy('id').limit(page.limit).offset(page.offset);
    return { items: rows.map(toAgent), total: Number(n) };
  }

  async listMarketplace(page: { limit: number; offset: number }) {
    const base = () =>
      this.db()('agents')
        .where({ status: 'published' })
        .whereNotNull('slug')
        .whereNull('deleted_at')
        .whereRaw(`coalesce((distribution->>'require_org_membership')::boolean, false) = false`)
        .whereRaw(
          `coalesce(jsonb_array_length(CASE WHEN jsonb_typeof(distribution->'allowed_group_ids') = 'array' THEN distribution->'allowed_group_ids' END), 0) = 0`,
        );
    const [{ n }] = await base().count({ n: '*' });
    const rows = await base().orderBy('published_at', 'desc').orderBy('id').limit(page.limit).offset(page.offset);
    return { items: rows.map(toAgent), total: Number(n) };
  }

  async countLive(organizationId: string) {
    const [{ n }] = await this.db()('agents').where({ organization_id: organizationId }).whereNull('deleted_at').count({ n: '*' });
    return Number(n);
  }

  async update(organizationId: string, id: string, patch: AgentPatch) {
    const row = toRow(patch);
    const q = this.db()('agents').where({ id, organization_id: organizationId }).whereNull('deleted_at');
    try {
      const [r] = Object.keys(row).length ? await q.update(row).returning('*') : await q.select('*');
      return r ? toAgent(r) : null;
    } catch (e) {
      if ((e as { code?: string }).code === '23505') throw new DomainError('CONFLICT', 'That slug is already taken');
      throw e;
    }
  }

  async softDelete(organizationId: string, id: string, at: string) {
    const n = await this.db()('agents')
      .where({ id, organization_id: organizationId })
      .whereNull('deleted_at')
      .update({ deleted_at: at, updated_at: at });
    return n === 1;
  }

  async slugExists(slug: string) {
    return !!(await this.db()('agents').where({ slug }).first('id'));
  }

  async grantsFor(agentId: string, userId: string) {
    const r = await this.db()('agent_grants').where({ agent_id: agentId, user_id: userId }).first();
    return (r?.permissions as ResourcePermission[] | undefined) ?? [];
  }

  async listGrants(agentId: string) {
    const rows = await this.db()('agent_grants').where({ agent_id: agentId }).orderBy('user_id');
    return rows.map((r) => ({
      agentId: r.agent_id as string,
      userId: r.user_id as string,
      permissions: r.permissions as ResourcePermission[],
    }));
  }

  async setGrant(g: AgentGrant) {
    if (!g.permissions.length) {
      await this.db()('agent_grants').where({ agent_id: g.agentId, user_id: g.userId }).delete();
      return;
    }
    await this.db()('agent_grants')
      .insert({ agent_id: g.agentId, user_id: g.userId, permissions: g.permissions })
      .onConflict(['agent_id', 'user_id'])
      .merge();
  }
}
