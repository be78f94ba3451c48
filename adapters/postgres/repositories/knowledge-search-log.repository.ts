import type { SearchLogEntry, SearchLogRepository, SearchSource } from '../../../core/knowledge/search-log';
import type { DbHandle } from '../db-handle';
import { iso } from './rows';

const toEntry = (r: Record<string, unknown>): SearchLogEntry => ({
  id: r.id as string,
  organizationId: r.organization_id as string,
  knowledgeBaseId: r.knowledge_base_id as string,
  query: r.query as string,
  source: r.source as SearchSource,
  userId: (r.user_id as string | null) ?? null,
  agentId: (r.agent_id as string | null) ?? null,
  conversationId: (r.conversation_id as string | null) ?? null,
  messageId: (r.message_id as string | null) ?? null,
  resultCount: Number(r.result_count),
  topScore: r.top_score == null ? null : Number(r.top_score),
  durationMs: Number(r.duration_ms),
  createdAt: iso(r.created_at),
});

export class KnexSearchLogRepository implements SearchLogRepository {
  constructor(private readonly db: DbHandle) {}

  async record(entries: SearchLogEntry[]) {
    if (entries.length === 0) return;
    await this.db()('knowledge_search_log').insert(
      entries.map((e) => ({
        id: e.id,
        organization_id: e.organizationId,
        knowledge_base_id: e.knowledgeBaseId,
        query: e.query,
        source: e.source,
        user_id: e.userId,
        agent_id: e.agentId,
        conversation_id: e.conversationId,
        message_id: e.messageId,
        result_count: e.resultCount,
        top_score: e.topScore,
        duration_ms: e.durationMs,
        created_at: e.createdAt,
      })),
    );
  }

  async list(organizationId: string, knowledgeBaseId: string, page: { limit: number; offset: number }) {
    const base = () => this.db()('knowledge_search_log').where({ organization_id: organizationId, knowledge_base_id: knowledgeBaseId });
    const [{ n }] = await base().count({ n: '*' });
    const rows = await base().orderBy('created_at', 'desc').orderBy('id').limit(page.limit).offset(page.offset);
    return { items: rows.map(toEntry), total: Number(n) };
  }

  async clear(organizationId: string, knowledgeBaseId: string) {
    return this.db()('knowledge_search_log').where({ organization_id: organizationId, knowledge_base_id: knowledgeBaseId }).delete();
  }
}
