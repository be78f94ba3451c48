/**
 * The one statement of a hybrid search over one vector space: for every knowledge base asked (a lateral row
 * `kb`), its nearest neighbours and its best BM25 matches, each scored on the other measure too. One round
 * trip whatever the number of knowledge bases; the filter by knowledge base is inside each scan, never applied
 * to a global top-k afterwards.
 *
 * The vector half picks its access path per knowledge base from the chunk count kept by the BM25 statistics
 * (`st.n`, maintained by triggers on every write, so it needs no cache of its own):
 * - up to `EXACT_SCAN_BUDGET / dimensions` chunks, an exact scan of the knowledge base's rows (scope index):
 *   the true nearest neighbours. In bench/search-speed (PGlite, 256 dimensions, offline hashed vectors) the
 *   filtered HNSW walk found 0.90 of them at 10k chunks in 10 knowledge bases and cost more CPU (14.5 ms
 *   against 9.0), and 0.36 of them at 100k (10k per knowledge base, 54 ms against 137);
 * - above it, the HNSW index with iterative scans (pgvector 0.8), which keeps walking the graph until enough
 *   rows of the knowledge base are found, instead of filtering a global top-k.
 * Both paths return ids and distances only; the chunk columns are read for the winners.
 */
import { BM25_SCORE, bm25Matches, bm25Terms, type TextSelectBudget } from './pgvector.bm25';
import { stagedTableOf, type VectorSpace } from './pgvector.schema';

/**
 * Rows × dimensions a knowledge base's exact scan may cost before the HNSW index is used instead: distance work
 * grows with both. 256 dimensions: 19,531 rows; 1,024: 4,882; 3,072 (halfvec): 1,627.
 */
export const EXACT_SCAN_BUDGET = 5_000_000;

export const CHUNK_COLUMNS_SQL =
  'c.id, c.organization_id, c.knowledge_base_id, c.document_id, c.chunk_index, c.content, c.embedding_type, c.importance, c.metadata';

/** Bindings (named): `org`, `kbs` (uuid[]), `text` (the query text, '' for none), and `vec` when `vector`. */
export interface HybridBindings {
  org: string;
  kbs: string[];
  text: string;
  vec?: string;
}

/**
 * The statement is prepared once and run with a generic plan (pgvector.prepared.ts), so the limit is written
 * into it: with the limit a parameter, the generic plan priced the HNSW walk for an unknown row count and
 * sorted the knowledge base's rows instead.
 */
export function hybridSearchSql(
  space: VectorSpace,
  textConfig: string,
  halves: { vector: boolean; text: boolean; limit: number; exactScanBudget?: number; textSelectBudget?: TextSelectBudget },
): string {
  const limit = halves.limit;
  const exactRows = Math.floor((halves.exactScanBudget ?? EXACT_SCAN_BUDGET) / space.dimensions);
  if (!Number.isInteger(limit) || limit < 1) throw new Error(`pgvector search: invalid limit ${limit}`);
  const vec = `CAST(:vec AS ${space.elementType}(${space.dimensions}))`;
  const staged = stagedTableOf(space);
  const scope = 'c.organization_id = :org AND c.knowledge_base_id = kb.id';
  const parts: string[] = [];
  if (halves.vector) {
    const exact = (table: string, gate: string) =>
      // OFFSET 0 keeps the distance sort out of the index: the planner would otherwise walk the HNSW graph
      `(SELECT n.id, n.dist FROM (SELECT c.id, c.embedding <=> ${vec} AS dist FROM ${table} c WHERE ${scope}${gate} OFFSET 0) n
        ORDER BY n.dist LIMIT ${limit})`;
    const graph = `(SELECT c.id, c.embedding <=> ${vec} AS dist FROM ${space.table} c WHERE ${scope} AND st.n > ${exactRows}
        ORDER BY c.embedding <=> ${vec} LIMIT ${limit})`;
    // staged rows (not in the graph yet) are always scanned exactly; a chunk's text score only where a query term matches
    const textScore = halves.text ? `CASE WHEN c.tsv @@ qt.any_term THEN ${BM25_SCORE} ELSE 0 END` : '0::float8';
    parts.push(`SELECT c.*, ${textScore} AS bm25, 'v' AS half, 1 - v.dist AS sim
      FROM (SELECT * FROM (${exact(space.table, ` AND st.n <= ${exactRows}`)} UNION ALL ${graph}
        UNION ALL ${exact(staged, '')}) u ORDER BY u.dist LIMIT ${limit}) v
      JOIN (SELECT * FROM ${space.table} UNION ALL SELECT * FROM ${staged}) c ON c.id = v.id`);
  }
  if (halves.text) {
    // both tables as one, so the rare/common term selection sees the knowledge base's rows wherever they are
    const rows = `(SELECT * FROM ${space.table} UNION ALL SELECT * FROM ${staged})`;
    const sim = halves.vector ? `1 - (c.embedding <=> ${vec})` : 'NULL::float8';
    parts.push(`SELECT c.*, 't' AS half, ${sim} AS sim FROM (${bm25Matches(rows, limit, halves.textSelectBudget)}) c`);
  }
  return `WITH q AS (SELECT coalesce(array_agg(DISTINCT l), '{}') AS lex
      FROM unnest(tsvector_to_array(to_tsvector('${textConfig}', kv_search_text(:text)))) l)
    SELECT ${CHUNK_COLUMNS_SQL}, c.half, c.sim, c.bm25 / greatest(qt.idf_total, 1e-9) AS text_score
    FROM q CROSS JOIN unnest(CAST(:kbs AS uuid[])) AS kb(id) ${bm25Terms(halves.textSelectBudget)}
    CROSS JOIN LATERAL (${parts.map((p) => `(${p})`).join(' UNION ALL ')}) c`;
}
