import { randomUUID } from 'node:crypto';

import type { Knex } from 'knex';

import type { RetrievalEvent, RetrievalRecorder } from '../../../core/ports/retrieval-recorder';

export interface BufferedRecorderOptions {
  /** Longest time an event waits in memory before it is written. */
  flushIntervalMs?: number;
  /** Events that trigger a write at once. */
  maxBuffered?: number;
  /** Events kept at most while the store is unreachable (the oldest are dropped beyond it). */
  maxPending?: number;
  log?: (level: 'warn' | 'error', message: string, extra?: unknown) => void;
}

/**
 * Keeps the chat path free: `record` appends to an array; a timer (or a full buffer) writes the batch with two
 * multi-row inserts. Analytics events are not worth failing a turn for: a failed write is logged and retried
 * with the next batch (bounded by `maxPending`); events still in memory when a process dies are lost.
 */
export class BufferedRetrievalRecorder implements RetrievalRecorder {
  readonly id = 'postgres-buffered';
  private buffer: RetrievalEvent[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  private readonly o: Required<Omit<BufferedRecorderOptions, 'log'>> & Pick<BufferedRecorderOptions, 'log'>;

  constructor(
    private readonly db: Knex,
    options: BufferedRecorderOptions = {},
  ) {
    this.o = { flushIntervalMs: 250, maxBuffered: 500, maxPending: 50_000, ...options };
  }

  record(event: RetrievalEvent): void {
    if (event.knowledgeBaseIds.length === 0) return;
    this.buffer.push(event);
    if (this.buffer.length >= this.o.maxBuffered) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.o.flushIntervalMs);
      this.timer.unref();
    }
  }

  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.writing = this.writing.then(() => this.writeBuffered());
    return this.writing;
  }

  private async writeBuffered(): Promise<void> {
    if (this.buffer.length === 0) return;
    const batch = this.buffer;
    this.buffer = [];
    const queries: Record<string, unknown>[] = [];
    const hits: Record<string, unknown>[] = [];
    for (const e of batch) {
      const share = e.costUsd / e.knowledgeBaseIds.length;
      for (const kbId of new Set(e.knowledgeBaseIds)) {
        const own = e.chunks.filter((c) => c.knowledgeBaseId === kbId);
        const id = randomUUID();
        queries.push({
          id,
          organization_id: e.organizationId,
          knowledge_base_id: kbId,
          source: e.source,
          agent_id: e.agentId,
          conversation_id: e.conversationId,
          message_id: e.messageId,
          query: e.query.slice(0, 1000),
          result_count: own.length,
          top_score: own.length ? Math.max(...own.map((c) => c.score)) : null,
          cost_usd: share,
          created_at: e.at,
        });
        for (const c of own)
          hits.push({
            query_id: id,
            knowledge_base_id: kbId,
            chunk_id: c.chunkId,
            document_id: c.documentId,
            score: c.score,
            created_at: e.at,
          });
      }
    }
    try {
      await this.db.transaction(async (trx) => {
        // A knowledge base deleted meanwhile: its rows are skipped rather than failing the batch.
        const live = new Set(
          (await trx('knowledge_bases')
            .whereIn('id', [...new Set(queries.map((q) => q.knowledge_base_id as string))])
            .pluck('id')) as string[],
        );
        const keptQueries = queries.filter((q) => live.has(q.knowledge_base_id as string));
        const keptHits = hits.filter((h) => live.has(h.knowledge_base_id as string));
        for (let i = 0; i < keptQueries.length; i += 500) await trx('analytics_kb_queries').insert(keptQueries.slice(i, i + 500));
        for (let i = 0; i < keptHits.length; i += 500) await trx('analytics_chunk_hits').insert(keptHits.slice(i, i + 500));
      });
    } catch (error) {
      this.o.log?.('warn', 'analytics: could not write retrieval events; retrying with the next batch', error);
      this.buffer = [...batch, ...this.buffer].slice(-this.o.maxPending);
    }
  }

  async close(): Promise<void> {
    await this.flush();
  }
}
