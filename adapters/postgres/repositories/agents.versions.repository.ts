import type { AgentSnapshot, AgentVersion, AgentVersionRepository } from '../../../core/agents/agent-version';
import type { DbHandle } from '../db-handle';
import { iso } from './rows';

const toVersion = (r: Record<string, unknown>): AgentVersion => ({
  id: r.id as string,
  agentId: r.agent_id as string,
  organizationId: r.organization_id as string,
  version: Number(r.version),
  changes: r.changes as AgentSnapshot,
  notes: r.notes as string,
  createdAt: iso(r.created_at),
  createdBy: (r.created_by as string | null) ?? null,
});

export class KnexAgentVersionRepository implements AgentVersionRepository {
  constructor(private readonly db: DbHandle) {}

  async latestNumber(agentId: string) {
    const r = await this.db()('agent_versions').where({ agent_id: agentId }).max({ v: 'version' }).first();
    return Number(r?.v ?? 0);
  }

  async add(v: AgentVersion) {
    await this.db()('agent_versions').insert({
      id: v.id,
      agent_id: v.agentId,
      organization_id: v.organizationId,
      version: v.version,
      changes: JSON.stringify(v.changes),
      notes: v.notes,
      created_by: v.createdBy,
      created_at: v.createdAt,
    });
  }

  async list(agentId: string, page: { limit: number; offset: number }) {
    const [{ n }] = await this.db()('agent_versions').where({ agent_id: agentId }).count({ n: '*' });
    const rows = await this.db()('agent_versions')
      .where({ agent_id: agentId })
      .orderBy('version', 'desc')
      .limit(page.limit)
      .offset(page.offset);
    return { items: rows.map(toVersion), total: Number(n) };
  }

  async find(agentId: string, version: number) {
    const r = await this.db()('agent_versions').where({ agent_id: agentId, version }).first();
    return r ? toVersion(r) : null;
  }
}
