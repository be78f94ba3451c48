/**
 * Deferred HNSW entries for large documents. Linking a row into pgvector's HNSW graph is most of the cost of
 * writing it (about 6 ms a 1024-dimension row on PGlite, against under 1 ms for the rest), so a document with
 * many chunks is written to the space's staged table (no HNSW index) and is searchable at once, by exact
 * distance; this mover then carries the rows into the indexed table in small transactions, so no request waits
 * long behind it. Several processes may move at once (SKIP LOCKED); rows left by a stopped process move when
 * an index opens next.
 */
import type { Knex } from 'knex';

import { STATS_MOVING_SETTING } from './pgvector.bm25';
import { CHUNK_COLUMNS, stagedTableOf, type VectorSpace } from './pgvector.schema';

/** Rows linked into the graph per transaction: about 100 ms of the database on a small machine, so requests interleave. */
export const MOVE_BATCH = 16;
/** The longest pause after a batch that others waited behind: as long as the batch took, at most this. */
const MAX_PAUSE_MS = 50;

const columns = CHUNK_COLUMNS.join(', ');
const updates = CHUNK_COLUMNS.filter((c) => c !== 'id')
  .map((c) => `${c} = excluded.${c}`)
  .join(', ');

/**
 * Moves up to `limit` staged rows into the indexed table in one statement (a search sees each row in exactly
 * one of the two). A staged row is never older than an indexed row with its id (writers delete the other
 * table's copy first), so it wins a conflict. The statement marks itself a move for the BM25 statistics
 * triggers, which then leave the moved rows' statistics as they are (the setting ends with its transaction,
 * and the triggers run at the statement's end, after `moving` was read). Returns the rows moved.
 */
export async function moveStagedRows(db: Knex, space: VectorSpace, limit = MOVE_BATCH): Promise<number> {
  const staged = stagedTableOf(space);
  const result = await db.raw(
    `WITH picked AS (SELECT id FROM ${staged} ORDER BY document_id, chunk_index LIMIT ? FOR UPDATE SKIP LOCKED),
      moving AS (SELECT set_config('${STATS_MOVING_SETTING}', 'on', true) AS flag),
      moved AS (DELETE FROM ${staged} s USING picked WHERE s.id = picked.id RETURNING ${CHUNK_COLUMNS.map((c) => `s.${c}`).join(', ')})
     INSERT INTO ${space.table} (${columns}) SELECT ${CHUNK_COLUMNS.map((c) => `moved.${c}`).join(', ')} FROM moved, moving
     ON CONFLICT (id) DO UPDATE SET ${updates}`,
    [limit],
  );
  return result.rowCount ?? 0;
}

export async function stagedCount(db: Knex, space: VectorSpace): Promise<number> {
  const [{ n }] = await db(stagedTableOf(space)).count({ n: '*' });
  return Number(n);
}

/** One background mover per space and process; `close` waits for the batch in flight. */
export class StagedRowsMover {
  private readonly running = new Map<number, Promise<void>>();
  /** Spaces written since their mover last looked: a write landing as a mover finds nothing is not left behind. */
  private readonly wanted = new Set<number>();
  private closed = false;

  /** Connection acquisitions from the store's pool so far (knex's tarn pool; 0 when it has none). */
  private readonly acquisitions: () => number;

  constructor(
    private readonly db: Knex,
    private readonly onError: (error: unknown) => void,
  ) {
    let n = 0;
    (db.client as { pool?: { on(event: 'acquireRequest', f: () => void): void } }).pool?.on('acquireRequest', () => n++);
    this.acquisitions = () => n;
  }

  /** Moves the space's staged rows in the background (joins the mover already at work on it). */
  schedule(space: VectorSpace): void {
    if (this.closed) return;
    this.wanted.add(space.dimensions);
    if (!this.running.has(space.dimensions)) this.running.set(space.dimensions, this.drain(space));
  }

  private async drain(space: VectorSpace) {
    const d = space.dimensions;
    try {
      while (this.wanted.has(d) && !this.closed) {
        this.wanted.delete(d);
        for (;;) {
          const before = this.acquisitions();
          const started = performance.now();
          if (this.closed || (await moveStagedRows(this.db, space)) === 0) break;
          // Someone else used the store meanwhile (our statement is one acquisition): a request's next statements
          // run before our next batch, instead of each waiting behind one on the embedded store's one session. (A
          // server, where staging is off by default, has no such queue; there the pause only slows the mover.)
          const contended = this.acquisitions() - before > 1;
          await new Promise<void>((r) =>
            contended ? setTimeout(r, Math.min(MAX_PAUSE_MS, performance.now() - started)) : setImmediate(r),
          );
        }
      }
    } catch (error) {
      if (!this.closed) this.onError(error);
    } finally {
      this.running.delete(d);
    }
  }

  /** Resolves once no move is under way (for tests and benchmarks; a new write may start another). */
  async idle(): Promise<void> {
    while (this.running.size) await Promise.all(this.running.values());
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.idle();
  }
}
