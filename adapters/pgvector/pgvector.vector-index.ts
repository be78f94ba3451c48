import type { Knex } from 'knex';

import type { Candidate, HybridCandidates, HybridSearchQuery, StoredChunk, VectorChunk, VectorIndex } from '../../core/ports/vector-index';
import { migrateUnlocked, withMigrationLock } from '../postgres/migrator';
import { textScoreOf, type TextSelectBudget } from './pgvector.bm25';
import { checkHnswBuild, type HnswBuild, PGVECTOR_HNSW_DEFAULTS, rebuildHnswIndexes } from './pgvector.hnsw';
import { type HybridBindings, hybridSearchSql } from './pgvector.hybrid-query';
import { runPrepared, statementName } from './pgvector.prepared';
import {
  createSpace,
  ensurePgvectorExtension,
  listSpaces,
  pgvectorMigrations,
  spaceFor,
  stagedTableOf,
  type VectorSpace,
} from './pgvector.schema';
import { stagedCount, StagedRowsMover } from './pgvector.staging';

export interface PgvectorVectorIndexOptions {
  /** The relational store's connection (pgvector lives in the same Postgres). */
  knex: Knex;
  /** Postgres text search configuration of the tsvector column (default `english`); fixed per table once created. */
  textSearchConfig?: string;
  /** Rows per INSERT statement (default 500). */
  batchSize?: number;
  /** HNSW candidate list size during search (default 100; raised to twice the candidates asked for). */
  efSearch?: number;
  /**
   * A document written with more chunks than this is staged and linked into the HNSW graph in the background
   * (see pgvector.staging.ts). Unset (the default): every row is linked as it is written.
   */
  deferIndexAbove?: number;
  /**
   * A new document's rows are written this many to a transaction (0 or unset: the whole document in one). The
   * embedded store has one session, so one long transaction would hold every other request's statements for
   * the seconds a large document takes; a re-written document stays one transaction (atomic replacement).
   * Staged rows, which skip the HNSW linking, go STAGED_ROWS_FACTOR times as many to a transaction.
   */
  rowsPerTransaction?: number;
  /** HNSW build parameters of new indexes; migration 0070 rebuilds existing ones made otherwise (default pgvector's). */
  hnsw?: HnswBuild;
  /**
   * Rows × dimensions up to which a knowledge base's vector half is an exact scan rather than an HNSW walk
   * (default EXACT_SCAN_BUDGET, pgvector.hybrid-query.ts).
   */
  exactScanBudget?: number;
  /** Chunks the rarest query terms may select for the full-text half (default TEXT_SELECT_BUDGET, pgvector.bm25.ts). */
  textSelectBudget?: TextSelectBudget;
  /**
   * Search several knowledge bases with one statement each, side by side on the pool's connections (a server),
   * instead of one statement for all of them (default false: the embedded store runs one statement at a time).
   */
  parallelKnowledgeBases?: boolean;
  /** Where a failed background move is reported (it is retried on the next staged write or open). */
  onError?: (error: unknown) => void;
}

export const pgvectorOptionsSchema = {
  type: 'object',
  properties: {
    textSearchConfig: { type: 'string', pattern: '^[a-z_][a-z0-9_]*$', default: 'english' },
    batchSize: { type: 'integer', minimum: 1, maximum: 5000, default: 500 },
    efSearch: { type: 'integer', minimum: 10, maximum: 1000, default: 100 },
    deferIndexAbove: { type: 'integer', minimum: 0 },
    rowsPerTransaction: { type: 'integer', minimum: 0 },
  },
} as const;

/**
 * float4 keeps about 7 significant digits: 9 give back every float32 exactly and half the text of 17. The
 * toPrecision string goes out as it is (no round trip through Number): formatting thousands of 1024-entry
 * vectors is main-thread work, and this is about three times cheaper.
 */
export function toVectorLiteral(v: ArrayLike<number>): string {
  let s = '[';
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    if (i > 0) s += ',';
    s += Number.isFinite(x) ? x.toPrecision(9) : '0';
  }
  return `${s}]`;
}

/**
 * pgvector's binary input (vector_recv: int16 dimensions, int16 zero, big-endian float4s). pg sends a Buffer
 * parameter in binary, so the server skips parsing a thousand decimals a row and this side skips printing
 * them: a 1024-dimension row costs 5-30 µs here against 85-165 µs as text (toVectorLiteral).
 */
export function toVectorBinary(v: ArrayLike<number>): Buffer {
  const out = Buffer.allocUnsafe(4 + 4 * v.length);
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  view.setInt16(0, v.length);
  view.setInt16(2, 0);
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    view.setFloat32(4 + 4 * i, Number.isFinite(x) ? x : 0);
  }
  return out;
}

/** Rows formatted between two event-loop turns, so formatting a large document does not hold requests. */
const FORMAT_SLICE = 32;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** halfvec's binary input takes float16s: those (spaces above 2000 dimensions) keep the text form. */
const vectorValue = (space: VectorSpace, v: ArrayLike<number>) => (space.elementType === 'vector' ? toVectorBinary(v) : toVectorLiteral(v));

async function rowsOf(space: VectorSpace, chunks: VectorChunk[]): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  for (let i = 0; i < chunks.length; i++) {
    if (i > 0 && i % FORMAT_SLICE === 0) await nextTurn();
    const c = chunks[i];
    rows.push({
      id: c.id,
      organization_id: c.organizationId,
      knowledge_base_id: c.knowledgeBaseId,
      document_id: c.documentId,
      chunk_index: c.chunkIndex,
      content: c.content.replace(/\u0000/g, ''),
      embedding: vectorValue(space, c.embedding),
      embedding_type: c.embeddingType,
      importance: c.importance,
      metadata: JSON.stringify(c.metadata ?? {}),
    });
  }
  return rows;
}

function toChunk(r: Record<string, unknown>): StoredChunk {
  return {
    id: r.id as string,
    organizationId: r.organization_id as string,
    knowledgeBaseId: r.knowledge_base_id as string,
    documentId: r.document_id as string,
    chunkIndex: Number(r.chunk_index),
    content: r.content as string,
    embeddingType: r.embedding_type as StoredChunk['embeddingType'],
    importance: Number(r.importance),
    metadata: (r.metadata as Record<string, unknown>) ?? {},
  };
}

const clamp01 = (x: number) => Math.max(0, Math.min(1, x));
const toCandidate = (r: Record<string, unknown>): Candidate => ({
  chunk: toChunk(r),
  vectorScore: r.sim == null ? null : clamp01(Number(r.sim)),
  textScore: r.text_score == null ? null : textScoreOf(Number(r.text_score)),
});

/** Vectors and full text in the relational Postgres (pgvector + tsvector); see pgvector.schema.ts. */
const SPACES_TTL_MS = 30_000;
/**
 * A transaction's rows bound how long it holds the embedded store's one session, and a staged row costs about a
 * quarter of a linked one to write (0.5 against 1.8 ms on PGlite, ingest bench): 64 staged rows hold it about as
 * long as 16 linked ones (33 against 29 ms), and a 1,568-chunk document stored in 0.8 s instead of 1.1.
 */
const STAGED_ROWS_FACTOR = 4;
/** How many times the rows a new document's transaction takes while no one else uses the store (writeNewDocument). */
const ALONE_FACTOR = 4;

export class PgvectorVectorIndex implements VectorIndex {
  readonly id = 'pgvector';
  private readonly db: Knex;
  private readonly textConfig: string;
  private readonly batchSize: number;
  private readonly efSearch: number;
  private readonly deferIndexAbove: number;
  private readonly rowsPerTransaction: number;
  private readonly exactScanBudget: number | undefined;
  private readonly textSelectBudget: TextSelectBudget | undefined;
  private readonly parallelKnowledgeBases: boolean;
  readonly hnsw: HnswBuild;
  private readonly mover: StagedRowsMover;
  private readonly ready = new Map<number, Promise<void>>();
  private iterativeScan = false;
  /** Embedding sizes that have a table, read once and re-read on a miss or after SPACES_TTL_MS (another process may add one). */
  private spaces: { dimensions: Set<number>; readAt: number } | null = null;

  private constructor(options: PgvectorVectorIndexOptions) {
    this.db = options.knex;
    this.textConfig = options.textSearchConfig ?? 'english';
    this.batchSize = options.batchSize ?? 500;
    this.efSearch = options.efSearch ?? 100;
    this.deferIndexAbove = options.deferIndexAbove ?? Number.POSITIVE_INFINITY;
    this.rowsPerTransaction = options.rowsPerTransaction ?? 0;
    this.exactScanBudget = options.exactScanBudget;
    this.textSelectBudget = options.textSelectBudget;
    this.parallelKnowledgeBases = options.parallelKnowledgeBases ?? false;
    this.hnsw = checkHnswBuild(options.hnsw ?? PGVECTOR_HNSW_DEFAULTS);
    this.mover = new StagedRowsMover(this.db, options.onError ?? (() => undefined));
    if (!/^[a-z_][a-z0-9_]*$/.test(this.textConfig))
      throw new Error(`pgvector index: invalid text search configuration ${this.textConfig}`);
  }

  /** Checks the extension (a clear error when the server lacks it), runs the vector migrations. */
  static async open(options: PgvectorVectorIndexOptions): Promise<PgvectorVectorIndex> {
    const index = new PgvectorVectorIndex(options);
    // api and worker open the index side by side at boot: enabling the extension races like the migrations do
    const version = await withMigrationLock(index.db, async () => {
      const enabled = await ensurePgvectorExtension(index.db);
      await migrateUnlocked(index.db, [pgvectorMigrations(index.hnsw)]);
      return enabled;
    });
    // after 0070, a build setting changed since is applied here (a no-op when every index already matches)
    await rebuildHnswIndexes(index.db, await listSpaces(index.db), index.hnsw);
    const [major, minor] = version.split('.').map(Number);
    index.iterativeScan = major > 0 || minor >= 8;
    // spaces made before staging existed get their staged table; rows a stopped process left staged move now
    for (const { dimensions } of await listSpaces(index.db)) {
      const space = await index.space(dimensions);
      if ((await stagedCount(index.db, space)) > 0) index.mover.schedule(space);
    }
    return index;
  }

  private space(dimensions: number): Promise<VectorSpace> {
    const space = spaceFor(dimensions);
    let p = this.ready.get(dimensions);
    if (!p) {
      p = createSpace(this.db, space, this.textConfig, this.hnsw);
      this.ready.set(dimensions, p);
      p.catch(() => this.ready.delete(dimensions));
    }
    return p.then(() => space);
  }

  /**
   * Multi-row upserts of `batchSize` rows; the next batch's rows are formatted while the database inserts the
   * current one (it runs in another thread or process), so formatting and indexing overlap.
   */
  private async write(trx: Knex.Transaction, space: VectorSpace, table: string, chunks: VectorChunk[]) {
    const size = this.batchSize;
    let rows = await rowsOf(space, chunks.slice(0, size));
    for (let i = 0; i < chunks.length; i += size) {
      const later = chunks.slice(i + size, i + 2 * size);
      const [, next] = await Promise.all([trx(table).insert(rows).onConflict('id').merge(), rowsOf(space, later)]);
      rows = next;
    }
  }

  private bySpace(chunks: VectorChunk[]): Map<number, VectorChunk[]> {
    const groups = new Map<number, VectorChunk[]>();
    for (const c of chunks) {
      const list = groups.get(c.embedding.length) ?? [];
      list.push(c);
      groups.set(c.embedding.length, list);
    }
    return groups;
  }

  async upsert(chunks: VectorChunk[]): Promise<void> {
    const groups = this.bySpace(chunks);
    const spaces = await Promise.all([...groups.keys()].map((d) => this.space(d)));
    await this.db.transaction(async (trx) => {
      for (const space of spaces) {
        const group = groups.get(space.dimensions)!;
        // a staged copy would otherwise replace this newer row when it moves
        await trx(stagedTableOf(space))
          .whereRaw('id = ANY(?::uuid[])', [group.map((c) => c.id)])
          .delete();
        await this.write(trx, space, space.table, group);
      }
    });
  }

  async replaceDocument(ref: { organizationId: string; knowledgeBaseId: string; documentId: string }, chunks: VectorChunk[]) {
    if (
      chunks.some(
        (c) => c.documentId !== ref.documentId || c.organizationId !== ref.organizationId || c.knowledgeBaseId !== ref.knowledgeBaseId,
      )
    ) {
      throw new Error('replaceDocument: every chunk must belong to the document it replaces');
    }
    const groups = this.bySpace(chunks);
    await Promise.all([...groups.keys()].map((d) => this.space(d)));
    const stage = chunks.length > this.deferIndexAbove;
    const slice = this.rowsPerTransaction * (stage ? STAGED_ROWS_FACTOR : 1);
    if (slice > 0 && chunks.length > slice && (await this.countByDocument(ref.organizationId, ref.documentId)) === 0)
      return this.writeNewDocument(groups, stage, slice);
    const staged: VectorSpace[] = [];
    const result = await this.db.transaction(async (trx) => {
      let deleted = 0;
      for (const space of await listSpaces(trx)) {
        const group = groups.get(space.dimensions) ?? [];
        const ids = group.map((c) => c.id);
        const target = stage ? stagedTableOf(space) : space.table;
        // Staged rows first: a row moving meanwhile is then already in the indexed table when that one is cleared.
        for (const table of [stagedTableOf(space), space.table]) {
          const rows = () => trx(table).where({ organization_id: ref.organizationId, document_id: ref.documentId });
          deleted += await rows()
            .modify((q) => {
              if (ids.length) q.whereNot((w) => w.whereRaw('id = ANY(?::uuid[])', [ids]));
            })
            .delete();
          // Kept chunks are rewritten, not deleted (uncounted). Staging clears them from both tables, so a row the
          // mover is carrying over is waited for and then found in the indexed table.
          if (ids.length && (stage || table !== target)) await rows().whereRaw('id = ANY(?::uuid[])', [ids]).delete();
        }
        if (group.length) await this.write(trx, space, target, group);
        if (group.length && stage) staged.push(space);
      }
      return { deleted, written: chunks.length };
    });
    for (const space of staged) this.mover.schedule(space);
    return result;
  }

  /**
   * A document with no rows yet, a few rows a transaction, so other requests' statements run between them. A
   * failure part-way leaves some rows; the ingestion's store step removes them (its compensation). While no one
   * else uses the store, a transaction takes ALONE_FACTOR times as many: nobody waits behind it, and fewer
   * transactions cost less (statement overhead, the BM25 statistics triggers). Each transaction's size is chosen
   * as it starts, so a request arriving meanwhile waits behind one larger transaction at most.
   */
  private async writeNewDocument(groups: Map<number, VectorChunk[]>, stage: boolean, slice: number) {
    const alone = slice * ALONE_FACTOR;
    for (const [dimensions, group] of groups) {
      const space = spaceFor(dimensions);
      const table = stage ? stagedTableOf(space) : space.table;
      // Rows are formatted ahead (one large slice) while the database inserts the previous transaction's.
      let formatted = Math.min(alone, group.length);
      let ready = await rowsOf(space, group.slice(0, formatted));
      while (ready.length) {
        const take = this.othersUseTheStore() ? slice : alone;
        const rows = ready.slice(0, take);
        ready = ready.slice(take);
        const more = ready.length < alone && formatted < group.length ? group.slice(formatted, (formatted += alone)) : [];
        const insert = this.db.transaction((trx) => trx(table).insert(rows).onConflict('id').merge());
        const [, next] = await Promise.all([insert, rowsOf(space, more)]);
        ready = ready.concat(next);
      }
      if (stage) this.mover.schedule(space);
    }
    return { deleted: 0, written: [...groups.values()].reduce((n, g) => n + g.length, 0) };
  }

  /** Whether another statement holds or waits for a connection of the pool (ours is released between transactions). */
  private othersUseTheStore(): boolean {
    const pool = (this.db.client as { pool?: { numUsed(): number; numPendingAcquires(): number } }).pool;
    return !pool || pool.numUsed() + pool.numPendingAcquires() > 0;
  }

  /** Resolves once this process has linked every row it staged into the HNSW graph (tests, benchmarks). */
  whenIndexed(): Promise<void> {
    return this.mover.idle();
  }

  private async deleteWhere(where: Record<string, string>): Promise<number> {
    let n = 0;
    // staged rows first, so a row moving meanwhile is found in the indexed table
    for (const space of await listSpaces(this.db))
      for (const table of [stagedTableOf(space), space.table]) n += await this.db(table).where(where).delete();
    return n;
  }

  deleteByDocument(organizationId: string, documentId: string) {
    return this.deleteWhere({ organization_id: organizationId, document_id: documentId });
  }

  deleteByKnowledgeBase(organizationId: string, knowledgeBaseId: string) {
    return this.deleteWhere({ organization_id: organizationId, knowledge_base_id: knowledgeBaseId });
  }

  async countByDocument(organizationId: string, documentId: string) {
    let n = 0;
    for (const space of await listSpaces(this.db)) {
      // one statement (one snapshot), so a row moving between the tables is counted once
      const count = (table: string) => `(SELECT count(*) FROM ${table} WHERE organization_id = ? AND document_id = ?)`;
      const result = await this.db.raw(`SELECT ${count(space.table)} + ${count(stagedTableOf(space))} AS c`, [
        organizationId,
        documentId,
        organizationId,
        documentId,
      ]);
      n += Number(result.rows[0].c);
    }
    return n;
  }

  async search(query: HybridSearchQuery): Promise<HybridCandidates> {
    const kbIds = [...new Set(query.knowledgeBaseIds)];
    const text = query.text?.trim() ? query.text.trim().slice(0, 4000) : null;
    const limit = Math.max(1, Math.min(query.candidatesPerKnowledgeBase, 1000));
    if (kbIds.length === 0 || (!query.embedding && !text)) return { vector: [], text: [] };
    const known = await this.knownSpaces(query.embedding?.length);
    const spaces = query.embedding
      ? known.has(query.embedding.length)
        ? [spaceFor(query.embedding.length)]
        : []
      : [...known].map(spaceFor);
    if (spaces.length === 0) return { vector: [], text: [] };

    // A server runs the knowledge bases side by side, one statement (both halves) each on its own connection;
    // the embedded store has one session, where one statement for all of them is one round trip instead of several.
    const rows =
      this.parallelKnowledgeBases && kbIds.length > 1
        ? (await Promise.all(kbIds.map((kb) => this.searchRows(spaces, [kb], query, text, limit)))).flat()
        : await this.searchRows(spaces, kbIds, query, text, limit);
    const byVector = (a: Candidate, b: Candidate) => b.vectorScore! - a.vectorScore! || a.chunk.id.localeCompare(b.chunk.id);
    const relevance = (r: Record<string, unknown>) => Number(r.text_score);
    const byText = (a: Record<string, unknown>, b: Record<string, unknown>) =>
      relevance(b) - relevance(a) || String(a.id).localeCompare(String(b.id));
    return {
      vector: rows
        .filter((r) => r.half === 'v')
        .map(toCandidate)
        .sort(byVector),
      text: rows
        .filter((r) => r.half === 't' && relevance(r) > 0)
        .sort(byText)
        .map(toCandidate),
    };
  }

  private searchRows(spaces: VectorSpace[], kbIds: string[], query: HybridSearchQuery, text: string | null, limit: number) {
    return this.db.transaction(async (trx) => {
      // One round trip for every setting (no bind parameters, so the simple protocol takes them all): the
      // prepared statements' generic plan (pgvector.prepared.ts) and the HNSW walk of the vector half. Sorts
      // are off for the plan of a statement with a vector half: the planner prices a distance at one operator
      // and so preferred sorting every row of a large knowledge base (60-100 ms at 10k rows of 1,024
      // dimensions) to walking the index; every other sort of the statement has no alternative, so it stays.
      // Before Postgres 18 a disabled sort adds 1e10 to the plan's cost, which set off JIT compilation on every
      // execution (400 ms a search on the test server): JIT is off for the transaction.
      const efSearch = Math.min(1000, Math.max(this.efSearch, limit * 2));
      const hnsw = query.embedding
        ? `; SET LOCAL enable_sort = off; SET LOCAL jit = off; SET LOCAL hnsw.ef_search = ${efSearch}${this.iterativeScan ? "; SET LOCAL hnsw.iterative_scan = 'relaxed_order'" : ''}`
        : '';
      await trx.raw(`SET LOCAL plan_cache_mode = force_generic_plan${hnsw}`);
      const rows: Record<string, unknown>[] = [];
      for (const space of spaces) rows.push(...(await this.searchSpace(trx, space, kbIds, query, text, limit)));
      return rows;
    });
  }

  /** Both halves of one space in one statement (pgvector.hybrid-query.ts). */
  private async searchSpace(
    trx: Knex.Transaction,
    space: VectorSpace,
    kbIds: string[],
    query: HybridSearchQuery,
    text: string | null,
    limit: number,
  ): Promise<Record<string, unknown>[]> {
    const vector = query.embedding !== null;
    const bindings: HybridBindings = { org: query.organizationId, kbs: kbIds, text: text ?? '' };
    if (query.embedding) bindings.vec = toVectorLiteral(query.embedding);
    const sql = hybridSearchSql(space, this.textConfig, {
      vector,
      text: text !== null,
      limit,
      exactScanBudget: this.exactScanBudget,
      textSelectBudget: this.textSelectBudget,
    });
    const result = await runPrepared(trx, statementName('kv_hybrid', sql), sql, bindings as unknown as Record<string, Knex.RawBinding>);
    return result.rows;
  }

  private async knownSpaces(wanted?: number): Promise<Set<number>> {
    const cached = this.spaces;
    const fresh = cached && Date.now() - cached.readAt < SPACES_TTL_MS;
    if (cached && fresh && (wanted === undefined || cached.dimensions.has(wanted))) return cached.dimensions;
    const dimensions = new Set((await listSpaces(this.db)).map((sp) => sp.dimensions));
    this.spaces = { dimensions, readAt: Date.now() };
    return dimensions;
  }

  async close(): Promise<void> {
    // the connection belongs to the relational store; only the background move stops here
    await this.mover.close();
  }
}
