import { createHash, randomUUID } from 'node:crypto';

import type { Knex } from 'knex';

import type { RetrievalEvent, RetrievalRecorder } from '../../../core/ports/retrieval-recorder';
import type { JournaledEvent, RetrievalJournal } from './retrieval-journal';

export interface BufferedRecorderOptions {
  /** Longest time an event waits in memory before it is written. */
  flushIntervalMs?: number;
  /** Events that trigger a write at once. */
  maxBuffered?: number;
  /** Events kept at most while the store is unreachable (the oldest are dropped beyond it). */
  maxPending?: number;
  /** Crash safety: every recorded event is appended here first; without it a crash loses the buffer. */
  journal?: RetrievalJournal;
  log?: (level: 'warn' | 'error', message: string, extra?: unknown) => void;
}

/** The row id of an event's query in one knowledge base: the same on every replay of the event. */
export function queryRowId(eventId: string, knowledgeBaseId: string): string {
  const h = createHash('sha1').update(`${eventId}:${knowledgeBaseId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16] as string, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * Keeps the chat path free: `record` appends to an array (and, with a journal, one line to a local file); a
 * timer (or a full buffer) writes the batch with multi-row inserts. Analytics events are not worth failing a
 * turn for: a failed write is logged and retried with the next batch (bounded by `maxPending`). With a journal
 * a crash loses nothing: `replayJournal` at boot writes what dead processes left. Every event has an id and its
 * rows are inserted with ON CONFLICT DO NOTHING (chunk hits only with a newly inserted query row, in the same
 * transaction), so an event replayed after a flush that committed but did not remove its segment counts once.
 */
export class BufferedRetrievalRecorder implements RetrievalRecorder {
  readonly id = 'postgres-buffered';
  private buffer: JournaledEvent[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  private readonly o: Required<Omit<BufferedRecorderOptions, 'log' | 'journal'>> & Pick<BufferedRecorderOptions, 'log' | 'journal'>;

  constructor(
    private readonly db: Knex,
    options: BufferedRecorderOptions = {},
  ) {
    this.o = { flushIntervalMs: 250, maxBuffered: 500, maxPending: 50_000, ...options };
  }

  record(event: RetrievalEvent): void {
    if (event.knowledgeBaseIds.length === 0) return;
    const e: JournaledEvent = { ...event, id: randomUUID() };
    this.o.journal?.append(e);
    this.buffer.push(e);
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

  /** Writes the events that processes which are gone left in the journal (at boot). Returns how many. */
  async replayJournal(): Promise<number> {
    const journal = this.o.journal;
    if (!journal) return 0;
    let replayed = 0;
    for (const { file, events } of journal.orphans()) {
      for (let i = 0; i < events.length; i += this.o.maxBuffered) await this.write(events.slice(i, i + this.o.maxBuffered));
      journal.removeOrphan(file);
      replayed += events.length;
    }
    return replayed;
  }

  private async writeBuffered(): Promise<void> {
    if (this.buffer.length === 0) return;
    const batch = this.buffer;
    this.buffer = [];
    const segments = this.o.journal?.rotate() ?? [];
    try {
      await this.write(batch);
      this.o.journal?.discard(segments);
    } catch (error) {
      this.o.log?.('warn', 'analytics: could not write retrieval events; retrying with the next batch', error);
      this.buffer = [...batch, ...this.buffer].slice(-this.o.maxPending);
    }
  }

  private async write(batch: JournaledEvent[]): Promise<void> {
    const queries: Record<string, unknown>[] = [];
    const hits: Record<string, unknown>[] = [];
    for (const e of batch) {
      const share = e.costUsd / e.knowledgeBaseIds.length;
      for (const kbId of new Set(e.knowledgeBaseIds)) {
        const own = e.chunks.filter((c) => c.knowledgeBaseId === kbId);
        const id = queryRowId(e.id, kbId);
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
    await this.db.transaction(async (trx) => {
      // A knowledge base deleted meanwhile: its rows are skipped rather than failing the batch.
      const live = new Set(
        (await trx('knowledge_bases')
          .whereIn('id', [...new Set(queries.map((q) => q.knowledge_base_id as string))])
          .pluck('id')) as string[],
      );
      const inserted = new Set<string>();
      const keptQueries = queries.filter((q) => live.has(q.knowledge_base_id as string));
      for (let i = 0; i < keptQueries.length; i += 500) {
        const rows = (await trx('analytics_kb_queries')
          .insert(keptQueries.slice(i, i + 500))
          .onConflict('id')
          .ignore()
          .returning('id')) as { id: string }[];
        for (const r of rows) inserted.add(r.id);
      }
      // Hits of a query row that already existed were written with it (same transaction, earlier attempt).
      const keptHits = hits.filter((h) => inserted.has(h.query_id as string));
      for (let i = 0; i < keptHits.length; i += 500) await trx('analytics_chunk_hits').insert(keptHits.slice(i, i + 500));
    });
  }

  async close(): Promise<void> {
    await this.flush();
    this.o.journal?.close();
  }
}
