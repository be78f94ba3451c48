import type { AgentUsageReader } from '../../../core/agents/agent-usage';
import type { DbHandle } from '../db-handle';

/** Usage of an agent over the conversations and messages tables (migration 0004, written by chat). */
export class KnexAgentUsageReader implements AgentUsageReader {
  constructor(private readonly db: DbHandle) {}

  /** Historical totals: conversations deleted since still count (their tokens were spent). */
  async totals(organizationId: string, agentId: string) {
    const conv = await this.db()('conversations').where({ organization_id: organizationId, agent_id: agentId }).count({ n: '*' }).first();
    const msg = await this.db()('messages as m')
      .join('conversations as c', 'c.id', 'm.conversation_id')
      .where({ 'c.organization_id': organizationId, 'c.agent_id': agentId })
      .select(
        this.db().raw('count(*)::bigint as messages'),
        this.db().raw('coalesce(sum(m.prompt_tokens + m.completion_tokens), 0)::bigint as tokens'),
        this.db().raw('coalesce(sum(m.cost_usd), 0)::numeric as cost'),
      )
      .first();
    return {
      conversationCount: Number(conv?.n ?? 0),
      messageCount: Number(msg?.messages ?? 0),
      totalTokens: Number(msg?.tokens ?? 0),
      estimatedCost: Number(msg?.cost ?? 0),
    };
  }

  async conversationCount(organizationId: string, agentId: string) {
    const r = await this.db()('conversations')
      .where({ organization_id: organizationId, agent_id: agentId })
      .whereNull('deleted_at')
      .count({ n: '*' })
      .first();
    return Number(r?.n ?? 0);
  }
}
