import type {
  AgentKnowledgeLink,
  AgentKnowledgeLinkRepository,
  AgentSummary,
  LinkedKnowledgeBase,
} from '../../../core/knowledge/knowledge-base';
import type { DbHandle } from '../db-handle';
import { toKnowledgeBase } from './knowledge-bases.repository';
import { iso } from './rows';

const toLink = (r: Record<string, unknown>): AgentKnowledgeLink => ({
  agentId: r.agent_id as string,
  knowledgeBaseId: r.knowledge_base_id as string,
  organizationId: r.organization_id as string,
  permissions: (r.permissions as Record<string, unknown>) ?? {},
  priority: Number(r.priority),
  linkedAt: iso(r.linked_at),
  linkedBy: (r.linked_by as string | null) ?? null,
});

export class KnexAgentKnowledgeLinkRepository implements AgentKnowledgeLinkRepository {
  constructor(private readonly db: DbHandle) {}

  async upsert(link: AgentKnowledgeLink) {
    await this.db()('agent_knowledge_bases')
      .insert({
        agent_id: link.agentId,
        knowledge_base_id: link.knowledgeBaseId,
        organization_id: link.organizationId,
        permissions: JSON.stringify(link.permissions),
        priority: link.priority,
        linked_by: link.linkedBy,
        linked_at: link.linkedAt,
      })
      .onConflict(['agent_id', 'knowledge_base_id'])
      .merge(['permissions', 'priority']);
  }

  async remove(organizationId: string, agentId: string, knowledgeBaseId: string) {
    const n = await this.db()('agent_knowledge_bases')
      .where({ organization_id: organizationId, agent_id: agentId, knowledge_base_id: knowledgeBaseId })
      .delete();
    return n === 1;
  }

  async find(organizationId: string, agentId: string, knowledgeBaseId: string) {
    const r = await this.db()('agent_knowledge_bases')
      .where({ organization_id: organizationId, agent_id: agentId, knowledge_base_id: knowledgeBaseId })
      .first();
    return r ? toLink(r) : null;
  }

  async listForAgent(organizationId: string, agentId: string, options: { limit?: number } = {}): Promise<LinkedKnowledgeBase[]> {
    const q = this.db()('agent_knowledge_bases as l')
      .join('knowledge_bases as kb', 'kb.id', 'l.knowledge_base_id')
      .where({ 'l.organization_id': organizationId, 'l.agent_id': agentId, 'kb.organization_id': organizationId })
      .orderBy('l.priority', 'desc')
      .orderBy('kb.name')
      .orderBy('kb.id')
      .select(
        'kb.*',
        'l.agent_id',
        'l.knowledge_base_id',
        'l.permissions',
        'l.priority',
        'l.linked_at',
        'l.linked_by',
        'l.organization_id as link_org',
      );
    if (options.limit !== undefined) q.limit(options.limit);
    const rows = await q;
    return rows.map((r: Record<string, unknown>) => ({
      knowledgeBase: toKnowledgeBase(r),
      link: toLink({ ...r, organization_id: r.link_org }),
    }));
  }

  async countForAgent(organizationId: string, agentId: string) {
    const [{ n }] = await this.db()('agent_knowledge_bases')
      .where({ organization_id: organizationId, agent_id: agentId })
      .count({ n: '*' });
    return Number(n);
  }

  async otherAgents(organizationId: string, knowledgeBaseIds: string[], exceptAgentId: string, sampleSize: number) {
    const out = new Map<string, { count: number; sample: AgentSummary[] }>(knowledgeBaseIds.map((id) => [id, { count: 0, sample: [] }]));
    if (knowledgeBaseIds.length === 0) return out;
    const db = this.db();
    const rows = await db
      .select('knowledge_base_id', 'id', 'name', 'n')
      .from(
        db('agent_knowledge_bases as l')
          .join('agents as a', 'a.id', 'l.agent_id')
          .where({ 'l.organization_id': organizationId, 'a.organization_id': organizationId })
          .whereIn('l.knowledge_base_id', knowledgeBaseIds)
          .whereNot('l.agent_id', exceptAgentId)
          .whereNull('a.deleted_at')
          .select(
            'l.knowledge_base_id',
            'a.id',
            'a.name',
            db.raw('count(*) over (partition by l.knowledge_base_id)::int as n'),
            db.raw('row_number() over (partition by l.knowledge_base_id order by a.name, a.id) as rn'),
          )
          .as('x'),
      )
      .where('rn', '<=', sampleSize)
      .orderBy(['knowledge_base_id', 'rn']);
    for (const r of rows as { knowledge_base_id: string; id: string; name: string; n: number }[]) {
      const entry = out.get(r.knowledge_base_id)!;
      entry.count = Number(r.n);
      entry.sample.push({ id: r.id, name: r.name });
    }
    return out;
  }
}
