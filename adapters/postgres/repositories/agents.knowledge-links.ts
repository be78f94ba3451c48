import type { KnowledgeLinks, KnowledgeReadiness, LinkedKnowledgeBase } from '../../../core/agents/knowledge-links';
import type { ResourcePermission } from '../../../core/identity/policy';
import type { DbHandle } from '../db-handle';

/**
 * The agents area's view of knowledge bases, in SQL over the knowledge tables of migration 0003
 * (knowledge_bases, agent_knowledge_bases, knowledge_documents). Knowledge bases are hard-deleted and
 * their links cascade, so every row found here is live.
 */
export class KnexAgentKnowledgeLinks implements KnowledgeLinks {
  constructor(private readonly db: DbHandle) {}

  async findLinkable(organizationId: string, userId: string, ids: string[]) {
    if (!ids.length) return [];
    const rows = await this.db()('knowledge_bases as kb')
      .leftJoin('knowledge_base_grants as g', (j) => j.on('g.knowledge_base_id', 'kb.id').andOn('g.user_id', this.db().raw('?', [userId])))
      .where('kb.organization_id', organizationId)
      .whereIn('kb.id', ids)
      .select('kb.id', 'g.permissions');
    return rows.map((r) => ({ id: r.id as string, grants: (r.permissions as ResourcePermission[] | null) ?? [] }));
  }

  async replaceLinks(organizationId: string, agentId: string, knowledgeBaseIds: string[], at: string) {
    const remove = this.db()('agent_knowledge_bases').where({ agent_id: agentId });
    if (knowledgeBaseIds.length) remove.whereNotIn('knowledge_base_id', knowledgeBaseIds);
    await remove.delete();
    if (!knowledgeBaseIds.length) return;
    await this.db()('agent_knowledge_bases')
      .insert(
        knowledgeBaseIds.map((id) => ({
          agent_id: agentId,
          knowledge_base_id: id,
          organization_id: organizationId,
          permissions: JSON.stringify({}),
          priority: 0,
          linked_at: at,
        })),
      )
      .onConflict(['agent_id', 'knowledge_base_id'])
      .ignore();
  }

  async linkedIds(agentId: string) {
    const rows = await this.db()('agent_knowledge_bases')
      .where({ agent_id: agentId })
      .orderBy([{ column: 'priority', order: 'desc' }, 'linked_at', 'knowledge_base_id'])
      .select('knowledge_base_id');
    return rows.map((r) => r.knowledge_base_id as string);
  }

  private counts() {
    const db = this.db();
    return db('knowledge_documents')
      .select('knowledge_base_id')
      .select(db.raw('count(*)::int as total'))
      .select(db.raw(`count(*) filter (where processing_status = 'completed')::int as indexed`))
      .select(db.raw(`count(*) filter (where processing_status = 'failed')::int as failed`))
      .select(db.raw(`count(*) filter (where processing_status in ('pending', 'processing'))::int as pending`))
      .groupBy('knowledge_base_id')
      .as('d');
  }

  async linkedKnowledgeBases(agentId: string): Promise<LinkedKnowledgeBase[]> {
    const rows = await this.db()('agent_knowledge_bases as l')
      .join('knowledge_bases as kb', 'kb.id', 'l.knowledge_base_id')
      .leftJoin(this.counts(), 'd.knowledge_base_id', 'kb.id')
      .where('l.agent_id', agentId)
      .orderBy([{ column: 'l.priority', order: 'desc' }, 'kb.name', 'kb.id'])
      .select('kb.id', 'kb.name', 'kb.description', 'd.total', 'd.indexed', 'd.failed', 'd.pending');
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      description: r.description ?? '',
      documentCount: Number(r.total ?? 0),
      indexedDocumentCount: Number(r.indexed ?? 0),
      failedDocumentCount: Number(r.failed ?? 0),
      pendingDocumentCount: Number(r.pending ?? 0),
    }));
  }

  async readiness(agentId: string): Promise<KnowledgeReadiness> {
    const kbs = await this.linkedKnowledgeBases(agentId);
    const sum = (f: (kb: LinkedKnowledgeBase) => number) => kbs.reduce((n, kb) => n + f(kb), 0);
    return {
      linkedKbCount: kbs.length,
      totalDocuments: sum((kb) => kb.documentCount),
      indexedDocuments: sum((kb) => kb.indexedDocumentCount),
      failedDocuments: sum((kb) => kb.failedDocumentCount),
      pendingDocuments: sum((kb) => kb.pendingDocumentCount),
    };
  }
}
