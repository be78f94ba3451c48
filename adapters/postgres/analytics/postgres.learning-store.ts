import type { Knex } from 'knex';

import type { FeedbackStore, MessageFeedback } from '../../../core/analytics/feedback';
import { type ChunkPrior, type LearningCounts, type LearningStore, PRIOR_HALF_LIFE_DAYS } from '../../../core/analytics/learning';
import type { LearningPriorSource } from '../../../core/knowledge/learning-prior';

type Row = Record<string, unknown>;
const num = (x: unknown) => Number(x ?? 0);
const iso = (x: unknown) => new Date(x as string).toISOString();

/** Learning priors, their switch, and message feedback on the relational store. */
export class PostgresLearningStore implements LearningStore, FeedbackStore, LearningPriorSource {
  readonly id = 'postgres';

  constructor(private readonly db: Knex) {}

  async priorEnabled(knowledgeBaseId: string) {
    const row = await this.db('kb_learning_settings').where({ knowledge_base_id: knowledgeBaseId }).first('prior_enabled');
    return row ? Boolean(row.prior_enabled) : true;
  }

  async setPriorEnabled(organizationId: string, knowledgeBaseId: string, enabled: boolean) {
    await this.db('kb_learning_settings')
      .insert({ knowledge_base_id: knowledgeBaseId, organization_id: organizationId, prior_enabled: enabled })
      .onConflict('knowledge_base_id')
      .merge(['prior_enabled']);
  }

  async chunkUsage(organizationId: string, knowledgeBaseId: string, since: Date, now: Date) {
    const { rows } = await this.db.raw(
      `SELECT h.chunk_id, (array_agg(h.document_id))[1] AS document_id, count(*) AS retrievals,
              sum(power(0.5, extract(epoch FROM (?::timestamptz - h.created_at)) / ?)) AS recent_use,
              coalesce(sum(r.up), 0) AS positive, coalesce(sum(r.down), 0) AS negative
         FROM analytics_chunk_hits h
         JOIN analytics_kb_queries q ON q.id = h.query_id
         LEFT JOIN (SELECT message_id, count(*) FILTER (WHERE rating > 0) AS up, count(*) FILTER (WHERE rating < 0) AS down
                      FROM message_feedback WHERE organization_id = ? GROUP BY message_id) r ON r.message_id = q.message_id
        WHERE h.knowledge_base_id = ? AND q.organization_id = ? AND h.created_at >= ?
          AND EXISTS (SELECT 1 FROM knowledge_documents d WHERE d.id = h.document_id)
        GROUP BY h.chunk_id`,
      [now, PRIOR_HALF_LIFE_DAYS * 86_400, organizationId, knowledgeBaseId, organizationId, since],
    );
    return (rows as Row[]).map((r) => ({
      chunkId: r.chunk_id as string,
      documentId: r.document_id as string,
      retrievals: num(r.retrievals),
      recentUse: num(r.recent_use),
      positive: num(r.positive),
      negative: num(r.negative),
    }));
  }

  /**
   * Replaces a knowledge base's priors. Safe against a concurrent run for the same knowledge base (the analytics
   * tick of another worker, a user's refresh), where delete-then-insert made the second of two runs fail with a
   * duplicate key on kb_chunk_priors_pkey: the run first writes the knowledge base's kb_prior_refreshes row, whose
   * lock makes a concurrent run wait for this one's commit; then the priors are upserted (ON CONFLICT) and only
   * the chunks the new set lacks are deleted, so even runs that did overlap could not collide on a key.
   */
  async savePriors(organizationId: string, knowledgeBaseId: string, priors: ChunkPrior[], now: Date) {
    const rows = priors.map((p) => ({
      knowledge_base_id: knowledgeBaseId,
      chunk_id: p.chunkId,
      document_id: p.documentId,
      organization_id: organizationId,
      prior: p.prior,
      retrievals: p.retrievals,
      positive: p.positive,
      negative: p.negative,
      updated_at: now,
    }));
    await this.db.transaction(async (trx) => {
      await trx('kb_prior_refreshes')
        .insert({ knowledge_base_id: knowledgeBaseId, refreshed_at: now })
        .onConflict('knowledge_base_id')
        .merge();
      await trx('kb_chunk_priors')
        .where({ knowledge_base_id: knowledgeBaseId })
        .whereRaw('NOT (chunk_id = ANY(?::uuid[]))', [rows.map((r) => r.chunk_id)])
        .delete();
      for (let i = 0; i < rows.length; i += 500)
        await trx('kb_chunk_priors')
          .insert(rows.slice(i, i + 500))
          .onConflict(['knowledge_base_id', 'chunk_id'])
          .merge(['document_id', 'organization_id', 'prior', 'retrievals', 'positive', 'negative', 'updated_at']);
    });
  }

  async counts(organizationId: string, knowledgeBaseId: string, since: Date): Promise<LearningCounts> {
    const { rows } = await this.db.raw(
      `SELECT (SELECT count(*) FROM analytics_kb_queries q
                WHERE q.knowledge_base_id = ? AND q.organization_id = ? AND q.created_at >= ? AND q.result_count > 0) AS retrievals,
              (SELECT count(DISTINCT f.message_id) FROM message_feedback f
                WHERE f.message_id IN (SELECT q.message_id FROM analytics_kb_queries q
                                        WHERE q.knowledge_base_id = ? AND q.organization_id = ? AND q.created_at >= ? AND q.result_count > 0)) AS rated,
              (SELECT count(DISTINCT f.message_id) FROM message_feedback f WHERE f.rating > 0
                  AND f.message_id IN (SELECT q.message_id FROM analytics_kb_queries q
                                        WHERE q.knowledge_base_id = ? AND q.organization_id = ? AND q.created_at >= ? AND q.result_count > 0)) AS positive,
              (SELECT count(*) FROM kb_chunk_priors WHERE knowledge_base_id = ?) AS prior_chunks`,
      [...Array(3).fill([knowledgeBaseId, organizationId, since]).flat(), knowledgeBaseId],
    );
    const r = rows[0] as Row;
    return {
      retrievals: num(r.retrievals),
      ratedAnswers: num(r.rated),
      positiveAnswers: num(r.positive),
      priorChunks: num(r.prior_chunks),
    };
  }

  async staleKnowledgeBases(limit: number) {
    const { rows } = await this.db.raw(
      `SELECT kb.organization_id, kb.id FROM knowledge_bases kb
         LEFT JOIN kb_learning_settings s ON s.knowledge_base_id = kb.id
         LEFT JOIN kb_prior_refreshes pr ON pr.knowledge_base_id = kb.id
        WHERE coalesce(s.prior_enabled, true) AND (
              EXISTS (SELECT 1 FROM analytics_kb_queries q WHERE q.knowledge_base_id = kb.id AND q.created_at > coalesce(pr.refreshed_at, '-infinity'))
           OR EXISTS (SELECT 1 FROM message_feedback f JOIN analytics_kb_queries q ON q.message_id = f.message_id
                       WHERE q.knowledge_base_id = kb.id AND f.updated_at > coalesce(pr.refreshed_at, '-infinity')))
        ORDER BY pr.refreshed_at NULLS FIRST LIMIT ?`,
      [limit],
    );
    return (rows as Row[]).map((r) => ({ organizationId: r.organization_id as string, knowledgeBaseId: r.id as string }));
  }

  async priorsFor(organizationId: string, chunkIds: string[]) {
    const { rows } = await this.db.raw(
      `SELECT p.chunk_id, p.prior FROM kb_chunk_priors p LEFT JOIN kb_learning_settings s ON s.knowledge_base_id = p.knowledge_base_id
        WHERE p.organization_id = ? AND p.chunk_id = ANY(?::uuid[]) AND coalesce(s.prior_enabled, true)`,
      [organizationId, chunkIds],
    );
    return new Map((rows as Row[]).map((r) => [r.chunk_id as string, num(r.prior)]));
  }

  async messageRole(organizationId: string, conversationId: string, messageId: string) {
    const row = await this.db('messages')
      .where({ id: messageId, conversation_id: conversationId, organization_id: organizationId })
      .first('role');
    return (row?.role as string | undefined) ?? null;
  }

  async upsert(f: MessageFeedback): Promise<MessageFeedback> {
    const [row] = await this.db('message_feedback')
      .insert({
        id: f.id,
        organization_id: f.organizationId,
        conversation_id: f.conversationId,
        message_id: f.messageId,
        agent_id: f.agentId,
        rater: f.rater,
        rating: f.rating === 'up' ? 1 : -1,
        comment: f.comment,
        created_at: f.createdAt,
        updated_at: f.updatedAt,
      })
      .onConflict(['message_id', 'rater'])
      .merge(['rating', 'comment', 'updated_at'])
      .returning('*');
    return {
      ...f,
      id: row.id as string,
      rating: num(row.rating) > 0 ? 'up' : 'down',
      comment: (row.comment as string | null) ?? null,
      createdAt: iso(row.created_at),
      updatedAt: iso(row.updated_at),
    };
  }
}
