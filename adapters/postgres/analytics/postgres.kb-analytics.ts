import type { Knex } from 'knex';

import type { KbAnalyticsStore, KbScope } from '../../../core/analytics/kb-analytics';

type Row = Record<string, unknown>;
const num = (x: unknown) => Number(x ?? 0);
const round = (x: unknown, digits = 4) => Math.round(num(x) * 10 ** digits) / 10 ** digits;
const iso = (x: unknown) => (x ? new Date(x as string).toISOString() : null);
const rate = (part: number, whole: number) => (whole ? round(part / whole) : 0);

/** Queries of the knowledge base in the window: `q` with its bindings. */
const WINDOW = `q.knowledge_base_id = ? AND q.organization_id = ? AND q.created_at >= ? AND q.created_at < ?`;
const win = (s: KbScope) => [s.knowledgeBaseId, s.organizationId, s.since, s.until];
/** Ratings per message: up and down counts. */
const RATINGS = `(SELECT message_id, count(*) FILTER (WHERE rating > 0) AS up, count(*) FILTER (WHERE rating < 0) AS down
                    FROM message_feedback GROUP BY message_id)`;

/** The eight knowledge-base analytics views (spec 4.6) by SQL over the recorded retrievals and feedback. */
export class PostgresKbAnalytics implements KbAnalyticsStore {
  readonly id = 'postgres';

  constructor(private readonly db: Knex) {}

  private async rows(sql: string, bindings: Knex.RawBinding[]): Promise<Row[]> {
    return (await this.db.raw(sql, bindings)).rows as Row[];
  }

  queryTrends = async (s: KbScope) => {
    const daily = await this.rows(
      `SELECT to_char((q.created_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS date, count(*) AS queries,
              count(*) FILTER (WHERE q.result_count > 0) AS with_results, avg(q.top_score) AS avg_top
         FROM analytics_kb_queries q WHERE ${WINDOW} GROUP BY 1 ORDER BY 1`,
      win(s),
    );
    const top = await this.rows(
      `SELECT lower(q.query) AS query, count(*) AS n, avg(q.top_score) AS avg_top, max(q.created_at) AS last
         FROM analytics_kb_queries q WHERE ${WINDOW} GROUP BY 1 ORDER BY n DESC, last DESC LIMIT ?`,
      [...win(s), s.limit],
    );
    return {
      totalQueries: daily.reduce((n, r) => n + num(r.queries), 0),
      daily: daily.map((r) => ({
        date: r.date,
        queries: num(r.queries),
        withResults: num(r.with_results),
        noResults: num(r.queries) - num(r.with_results),
        averageTopScore: round(r.avg_top),
      })),
      topQueries: top.map((r) => ({ query: r.query, count: num(r.n), averageTopScore: round(r.avg_top), lastAskedAt: iso(r.last) })),
    };
  };

  agentUsageBreakdown = async (s: KbScope) => {
    const rows = await this.rows(
      `SELECT g.*, a.name FROM (
         SELECT q.agent_id, count(*) AS queries, count(DISTINCT q.conversation_id) AS conversations,
                count(*) FILTER (WHERE q.result_count > 0) AS with_results, sum(q.cost_usd) AS cost, max(q.created_at) AS last
           FROM analytics_kb_queries q WHERE ${WINDOW} AND q.agent_id IS NOT NULL GROUP BY q.agent_id) g
       LEFT JOIN agents a ON a.id = g.agent_id ORDER BY g.queries DESC, g.agent_id LIMIT ?`,
      [...win(s), s.limit],
    );
    return rows.map((r) => ({
      agentId: r.agent_id,
      name: r.name ?? null,
      queries: num(r.queries),
      conversations: num(r.conversations),
      answeredWithSources: num(r.with_results),
      cost: round(r.cost, 8),
      lastUsedAt: iso(r.last),
    }));
  };

  knowledgeGaps = async (s: KbScope) => {
    const [{ total, gaps }] = await this.rows(
      `SELECT count(*) AS total, count(*) FILTER (WHERE q.result_count = 0) AS gaps FROM analytics_kb_queries q WHERE ${WINDOW}`,
      win(s),
    );
    const rows = await this.rows(
      `SELECT lower(q.query) AS query, count(*) AS n, max(q.created_at) AS last, count(DISTINCT q.agent_id) AS agents
         FROM analytics_kb_queries q WHERE ${WINDOW} AND q.result_count = 0 GROUP BY 1 ORDER BY n DESC, last DESC LIMIT ?`,
      [...win(s), s.limit],
    );
    return {
      totalQueries: num(total),
      unansweredQueries: num(gaps),
      gapRate: rate(num(gaps), num(total)),
      gaps: rows.map((r) => ({ query: r.query, count: num(r.n), agents: num(r.agents), lastAskedAt: iso(r.last) })),
    };
  };

  contentUtilization = async (s: KbScope) => {
    const [docs] = await this.rows(
      `SELECT count(*) AS documents, coalesce(sum(chunk_count), 0) AS chunks FROM knowledge_documents WHERE knowledge_base_id = ? AND organization_id = ?`,
      [s.knowledgeBaseId, s.organizationId],
    );
    const [used] = await this.rows(
      `SELECT count(DISTINCT h.chunk_id) AS chunks, count(DISTINCT h.document_id) AS documents
         FROM analytics_chunk_hits h JOIN analytics_kb_queries q ON q.id = h.query_id WHERE ${WINDOW}`,
      win(s),
    );
    const top = await this.rows(
      `SELECT h.chunk_id, h.document_id, d.title, count(*) AS hits, avg(h.score) AS avg_score
         FROM analytics_chunk_hits h JOIN analytics_kb_queries q ON q.id = h.query_id
         JOIN knowledge_documents d ON d.id = h.document_id
        WHERE ${WINDOW} GROUP BY h.chunk_id, h.document_id, d.title ORDER BY hits DESC, avg_score DESC LIMIT ?`,
      [...win(s), s.limit],
    );
    const unused = await this.rows(
      `SELECT d.id, d.title, d.chunk_count, d.created_at FROM knowledge_documents d
        WHERE d.knowledge_base_id = ? AND d.organization_id = ? AND NOT EXISTS (
              SELECT 1 FROM analytics_chunk_hits h JOIN analytics_kb_queries q ON q.id = h.query_id
               WHERE h.document_id = d.id AND ${WINDOW})
        ORDER BY d.created_at, d.id LIMIT ?`,
      [s.knowledgeBaseId, s.organizationId, ...win(s), s.limit],
    );
    return {
      totalDocuments: num(docs.documents),
      totalChunks: num(docs.chunks),
      usedDocuments: num(used.documents),
      usedChunks: num(used.chunks),
      utilizationRate: rate(num(used.chunks), num(docs.chunks)),
      topChunks: top.map((r) => ({
        chunkId: r.chunk_id,
        documentId: r.document_id,
        documentTitle: r.title,
        hits: num(r.hits),
        averageScore: round(r.avg_score),
      })),
      unusedDocuments: unused.map((r) => ({
        documentId: r.id,
        title: r.title,
        chunkCount: num(r.chunk_count),
        createdAt: iso(r.created_at),
      })),
    };
  };

  costAttribution = async (s: KbScope) => {
    const bySource = await this.rows(
      `SELECT q.source, count(*) AS n, sum(q.cost_usd) AS cost FROM analytics_kb_queries q WHERE ${WINDOW} GROUP BY 1 ORDER BY 1`,
      win(s),
    );
    const byAgent = await this.rows(
      `SELECT g.*, a.name FROM (SELECT q.agent_id, count(*) AS n, sum(q.cost_usd) AS cost FROM analytics_kb_queries q
         WHERE ${WINDOW} AND q.agent_id IS NOT NULL GROUP BY 1) g LEFT JOIN agents a ON a.id = g.agent_id ORDER BY g.cost DESC, g.agent_id LIMIT ?`,
      [...win(s), s.limit],
    );
    const total = bySource.reduce((n, r) => n + num(r.cost), 0);
    const queries = bySource.reduce((n, r) => n + num(r.n), 0);
    return {
      totalCost: round(total, 8),
      costPerQuery: queries ? round(total / queries, 8) : 0,
      bySource: bySource.map((r) => ({ source: r.source, queries: num(r.n), cost: round(r.cost, 8) })),
      byAgent: byAgent.map((r) => ({ agentId: r.agent_id, name: r.name ?? null, queries: num(r.n), cost: round(r.cost, 8) })),
    };
  };

  resourcePerformance = async (s: KbScope) => {
    const rows = await this.rows(
      `SELECT d.source_id, src.url, src.source_type, count(DISTINCT d.id) AS documents, count(h.chunk_id) AS hits, avg(h.score) AS avg_score,
              coalesce(sum(r.up), 0) AS up, coalesce(sum(r.down), 0) AS down
         FROM knowledge_documents d
         LEFT JOIN sources src ON src.id = d.source_id
         LEFT JOIN (analytics_chunk_hits h JOIN analytics_kb_queries q ON q.id = h.query_id AND ${WINDOW}) ON h.document_id = d.id
         LEFT JOIN ${RATINGS} r ON r.message_id = q.message_id
        WHERE d.knowledge_base_id = ? AND d.organization_id = ?
        GROUP BY d.source_id, src.url, src.source_type ORDER BY hits DESC, d.source_id NULLS FIRST LIMIT ?`,
      [...win(s), s.knowledgeBaseId, s.organizationId, s.limit],
    );
    return rows.map((r) => ({
      sourceId: r.source_id ?? null,
      url: r.url ?? null,
      sourceType: r.source_type ?? 'upload',
      documents: num(r.documents),
      hits: num(r.hits),
      averageScore: round(r.avg_score),
      positiveFeedback: num(r.up),
      negativeFeedback: num(r.down),
    }));
  };

  feedbackGaps = async (s: KbScope) => {
    const rows = await this.rows(
      `SELECT f.message_id, f.conversation_id, f.agent_id, f.comment, f.updated_at, min(q.query) AS query,
              coalesce(json_agg(DISTINCT jsonb_build_object('documentId', d.id, 'title', d.title)) FILTER (WHERE d.id IS NOT NULL), '[]') AS documents
         FROM message_feedback f
         JOIN analytics_kb_queries q ON q.message_id = f.message_id
         LEFT JOIN analytics_chunk_hits h ON h.query_id = q.id
         LEFT JOIN knowledge_documents d ON d.id = h.document_id
        WHERE f.rating < 0 AND ${WINDOW}
        GROUP BY f.id, f.message_id, f.conversation_id, f.agent_id, f.comment, f.updated_at
        ORDER BY f.updated_at DESC, f.id LIMIT ?`,
      [...win(s), s.limit],
    );
    return {
      negativeAnswers: rows.length,
      items: rows.map((r) => ({
        messageId: r.message_id,
        conversationId: r.conversation_id,
        agentId: r.agent_id,
        query: r.query,
        comment: r.comment ?? null,
        ratedAt: iso(r.updated_at),
        documents: r.documents,
      })),
    };
  };

  conversionFunnel = async (s: KbScope) => {
    const [r] = await this.rows(
      `SELECT count(*) AS searches, count(*) FILTER (WHERE q.result_count > 0) AS with_results,
              count(*) FILTER (WHERE q.result_count > 0 AND q.message_id IS NOT NULL) AS answers,
              count(*) FILTER (WHERE q.result_count > 0 AND (r.up > 0 OR r.down > 0)) AS rated,
              count(*) FILTER (WHERE q.result_count > 0 AND r.up > 0 AND r.down = 0) AS positive
         FROM analytics_kb_queries q LEFT JOIN ${RATINGS} r ON r.message_id = q.message_id WHERE ${WINDOW}`,
      win(s),
    );
    const [searches, withResults, answers, rated, positive] = ['searches', 'with_results', 'answers', 'rated', 'positive'].map((k) =>
      num(r[k]),
    );
    return {
      stages: [
        { stage: 'searched', count: searches },
        { stage: 'found_results', count: withResults },
        { stage: 'answered_with_sources', count: answers },
        { stage: 'rated', count: rated },
        { stage: 'rated_positive', count: positive },
      ],
      rates: { results: rate(withResults, searches), answers: rate(answers, withResults), positive: rate(positive, rated) },
    };
  };
}
