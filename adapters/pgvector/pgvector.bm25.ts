/**
 * BM25 for the pgvector index's full-text half. `ts_rank` has no inverse document frequency and no usable
 * length normalisation, so the index keeps term statistics per knowledge base, maintained by statement-level
 * triggers on every chunk table (so ingestion, replacement and deletion cannot forget them):
 *   kv_kb_text_stats(knowledge_base_id, chunks, lexemes)   chunk count and total chunk length
 *   kv_kb_term_df(knowledge_base_id, term, df)             chunks of the knowledge base containing the lexeme
 * Chunk length is the number of distinct lexemes of its tsvector (`length(tsv)`), a cheap and stable BM25
 * length for ~1000-character chunks. Stemming and stop words come from the table's text search configuration.
 */
import type { Knex } from 'knex';

export const BM25_K1 = 1.2;
export const BM25_B = 0.75;
/**
 * Terms in more than this share of a knowledge base's chunks do not select candidates when the query has
 * rarer terms (they still score): their idf is near zero, and matching on them scans most of the table.
 */
export const COMMON_TERM_SHARE = 0.2;

/**
 * Of the rare terms, only the rarest select candidates, while the chunks they match (the sum of their document
 * frequencies) stay within this budget; the others still score. The rarest one always selects if it is rare at all
 * (COMMON_TERM_SHARE); a question of common words only goes to the fallback of bm25Matches. Every candidate
 * costs a BM25 evaluation (~10-16 µs on the embedded store) and a 6-word question over 10k chunks matched
 * 700-3,000 of them. The budget grows with the knowledge base (`share` of its chunks).
 * Measured (bench/retrieval-eval, 2,133 chunks): 800 keeps every figure (text-only recall@3 0.961, hybrid
 * 0.967); 400 cost text-only 0.005 and 200 0.011, hybrid unchanged. On 10k synthetic chunks (bench/search-speed
 * `gateway.textBudget`) it keeps 0.965 of the unbudgeted top 10 and halves the text half's p95.
 */
export interface TextSelectBudget {
  min: number;
  share: number;
}
export const TEXT_SELECT_BUDGET: TextSelectBudget = { min: 800, share: 0.02 };
/** No budget: every rare term selects (the behaviour before the budget; the bench's reference). */
export const UNBUDGETED: TextSelectBudget = { min: 1e12, share: 0 };

/** The budget in chunks for the knowledge base of statistics `st` (SQL), after checking it. */
function budgetRows(budget: TextSelectBudget): string {
  if (!(budget.min >= 1) || !(budget.share >= 0)) throw new Error('pgvector search: invalid text select budget');
  return `greatest(${budget.min}, ${budget.share} * st.n)`;
}

/**
 * Set (transaction-local) by the mover of staged rows: its one statement deletes rows from the staged table and
 * inserts them unchanged into the indexed one, so their statistics stay as they are. Without this, each move
 * subtracted and added back every term of its rows (about a sixth of the time until a document is linked).
 */
export const STATS_MOVING_SETTING = 'kv.text_stats_moving';

/**
 * Statement-level trigger function: adds the inserted rows' statistics and subtracts the deleted ones'. During a
 * move (STATS_MOVING_SETTING) the rows leaving the staged table and entering the indexed one are not counted; a
 * copy the move replaces in the indexed table (ON CONFLICT, not expected) still has its statistics subtracted.
 */
const STATS_FUNCTION = `CREATE OR REPLACE FUNCTION kv_text_stats_apply() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  moving boolean := coalesce(current_setting('${STATS_MOVING_SETTING}', true), '') = 'on';
BEGIN
  IF TG_OP = 'UPDATE' OR (TG_OP = 'DELETE' AND NOT moving) THEN
    WITH gone AS (
      SELECT knowledge_base_id AS kb, count(*) AS n, sum(length(tsv)) AS lexemes FROM old_rows GROUP BY 1
    )
    UPDATE kv_kb_text_stats s SET chunks = s.chunks - gone.n, lexemes = s.lexemes - gone.lexemes
    FROM gone WHERE s.knowledge_base_id = gone.kb;
    WITH gone AS (
      SELECT r.knowledge_base_id AS kb, l AS term, count(*) AS n
      FROM old_rows r, unnest(tsvector_to_array(r.tsv)) l GROUP BY 1, 2
    )
    UPDATE kv_kb_term_df d SET df = d.df - gone.n FROM gone WHERE d.knowledge_base_id = gone.kb AND d.term = gone.term;
    DELETE FROM kv_kb_term_df d WHERE d.df <= 0 AND d.knowledge_base_id IN (SELECT DISTINCT knowledge_base_id FROM old_rows);
    DELETE FROM kv_kb_text_stats s WHERE s.chunks <= 0 AND s.knowledge_base_id IN (SELECT DISTINCT knowledge_base_id FROM old_rows);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NOT moving THEN
    INSERT INTO kv_kb_text_stats AS s (knowledge_base_id, chunks, lexemes)
      SELECT knowledge_base_id, count(*), sum(length(tsv)) FROM new_rows GROUP BY 1 ORDER BY 1
    ON CONFLICT (knowledge_base_id) DO UPDATE SET chunks = s.chunks + excluded.chunks, lexemes = s.lexemes + excluded.lexemes;
    -- sorted, so concurrent ingestions lock shared terms in the same order
    INSERT INTO kv_kb_term_df AS d (knowledge_base_id, term, df)
      SELECT r.knowledge_base_id, l, count(*) FROM new_rows r, unnest(tsvector_to_array(r.tsv)) l GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (knowledge_base_id, term) DO UPDATE SET df = d.df + excluded.df;
  END IF;
  RETURN NULL;
END
$fn$`;

/** Migration body: the trigger function as it is now (every chunk table's triggers call it by name). */
export async function replaceStatsFunction(db: Knex): Promise<void> {
  await db.raw(STATS_FUNCTION);
}

/** Creates the statistics triggers of one chunk table (idempotent). */
export async function createStatsTriggers(db: Knex | Knex.Transaction, table: string): Promise<void> {
  await db.raw(
    `CREATE OR REPLACE TRIGGER ${table}_stats_ins AFTER INSERT ON ${table} REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION kv_text_stats_apply()`,
  );
  await db.raw(
    `CREATE OR REPLACE TRIGGER ${table}_stats_upd AFTER UPDATE ON ${table} REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION kv_text_stats_apply()`,
  );
  await db.raw(
    `CREATE OR REPLACE TRIGGER ${table}_stats_del AFTER DELETE ON ${table} REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION kv_text_stats_apply()`,
  );
}

/** Migration body: statistics tables, the trigger function, and triggers + backfill for existing chunk tables. */
export async function createBm25Statistics(db: Knex): Promise<void> {
  await db.raw(`CREATE TABLE kv_kb_text_stats (
    knowledge_base_id uuid PRIMARY KEY,
    chunks bigint NOT NULL,
    lexemes bigint NOT NULL
  )`);
  await db.raw(`CREATE TABLE kv_kb_term_df (
    knowledge_base_id uuid NOT NULL,
    term text NOT NULL,
    df integer NOT NULL,
    PRIMARY KEY (knowledge_base_id, term)
  )`);
  await db.raw(STATS_FUNCTION);
  const spaces = (await db('vector_spaces').select('table_name')) as { table_name: string }[];
  for (const { table_name: t } of spaces) {
    await createStatsTriggers(db, t);
    await db.raw(`INSERT INTO kv_kb_text_stats AS s (knowledge_base_id, chunks, lexemes)
      SELECT knowledge_base_id, count(*), sum(length(tsv)) FROM ${t} GROUP BY 1
      ON CONFLICT (knowledge_base_id) DO UPDATE SET chunks = s.chunks + excluded.chunks, lexemes = s.lexemes + excluded.lexemes`);
    await db.raw(`INSERT INTO kv_kb_term_df AS d (knowledge_base_id, term, df)
      SELECT knowledge_base_id, l, count(*) FROM ${t}, unnest(tsvector_to_array(tsv)) l GROUP BY 1, 2
      ON CONFLICT (knowledge_base_id, term) DO UPDATE SET df = d.df + excluded.df`);
  }
}

/**
 * Per knowledge base `kb(id)` (a lateral row): `st` its statistics, `qt` the query's lexemes known to it with
 * their idf, `sel` the selecting terms OR-ed (the rarest within `budget`; null when none is rare) and
 * `any_term` all of them OR-ed. Expects a CTE `q(lex text[])` of the query's distinct lexemes.
 */
export const bm25Terms = (budget: TextSelectBudget = TEXT_SELECT_BUDGET) => `
  CROSS JOIN LATERAL (
    SELECT coalesce(max(s.chunks), 0)::float8 AS n, coalesce(max(s.lexemes)::float8 / nullif(max(s.chunks), 0), 1) AS avgdl
    FROM kv_kb_text_stats s WHERE s.knowledge_base_id = kb.id
  ) st
  CROSS JOIN LATERAL (
    SELECT array_agg(d.term) AS terms,
      array_agg(ln(1 + (st.n - d.df + 0.5) / (d.df + 0.5))) AS idfs,
      -- query terms the knowledge base lacks count with the highest idf, so matching one common word of an
      -- off-topic question does not look like a full match
      coalesce(sum(ln(1 + (st.n - d.df + 0.5) / (d.df + 0.5))), 0)
        + ((SELECT cardinality(lex) FROM q) - count(d.term)) * ln(1 + (st.n + 0.5) / 0.5) AS idf_total,
      string_agg(quote_literal(d.term), ' | ')
        FILTER (WHERE d.df <= ${COMMON_TERM_SHARE} * st.n AND (d.rarer = 0 OR d.rarer + d.df <= ${budgetRows(budget)}))::tsquery AS sel,
      string_agg(quote_literal(d.term), ' | ')::tsquery AS any_term
    FROM (SELECT t.term, t.df, sum(t.df) OVER (ORDER BY t.df, t.term) - t.df AS rarer
      FROM q, kv_kb_term_df t
      WHERE t.knowledge_base_id = kb.id AND t.term = ANY(q.lex) AND position(E'\\\\' in t.term) = 0) d
  ) qt`;

/**
 * Text score (0-1) from the BM25 ratio bm25 / sum of the query terms' idf. The ratio is 1 for a chunk of
 * average length holding every query term once and approaches k1 + 1 with repetitions, so a plain clamp at
 * 1 tied every strong match (and let the chunk id, or the vector similarity alone, order them). Below the
 * knee the score is the ratio itself (the combined-score floors keep their meaning); above it the rest of
 * the range up to k1 + 1 is mapped linearly onto knee..1, keeping BM25's order.
 */
export const TEXT_SCORE_KNEE = 0.8;
export function textScoreOf(ratio: number): number {
  if (!(ratio > 0)) return 0;
  if (ratio <= TEXT_SCORE_KNEE) return ratio;
  return Math.min(1, TEXT_SCORE_KNEE + ((1 - TEXT_SCORE_KNEE) * (ratio - TEXT_SCORE_KNEE)) / (BM25_K1 + 1 - TEXT_SCORE_KNEE));
}

/**
 * BM25 of chunk row `c` against `qt` (in a LATERAL subquery; 0 when nothing matches). Only the query's lexemes
 * are unnested: setweight marks them (a binary search each) and ts_filter keeps them, instead of expanding the
 * chunk's ~60 lexemes into rows for every scored chunk (the text half's main cost).
 */
export const BM25_SCORE = `(SELECT coalesce(sum(i.idf * f.tf * ${BM25_K1 + 1} / (f.tf + ${BM25_K1} * (${1 - BM25_B} + ${BM25_B} * length(c.tsv) / st.avgdl))), 0)
    FROM (SELECT u.lexeme, coalesce(array_length(u.positions, 1), 1)::float8 AS tf
      FROM unnest(ts_filter(setweight(c.tsv, 'A', qt.terms), '{a}')) u) f
    JOIN unnest(qt.terms, qt.idfs) AS i(term, idf) ON i.term = f.lexeme)`;

/**
 * The best BM25 matches of one chunk table for `kb`, `qt`: first among chunks holding a selecting (rare) query
 * term; only when those are fewer than the limit, also among chunks holding only other terms. That fallback
 * scores at most the select budget's number of them, taken as the index returns them rather than the best:
 * they hold no rare term, so they are the weak end of the list either way, and scoring all of a common word's
 * chunks (1,000 of 10k for `first`) was the text half's slowest case. Named binding: `org` (organization id).
 */
export function bm25Matches(table: string, limit: number, budget: TextSelectBudget = TEXT_SELECT_BUDGET): string {
  const scope = `c.organization_id = :org AND c.knowledge_base_id = kb.id`;
  const scored = `SELECT c.*, ${BM25_SCORE} AS bm25 FROM ${table} c WHERE ${scope}`;
  const others = `SELECT * FROM ${table} c WHERE ${scope} AND c.tsv @@ qt.any_term AND NOT (qt.sel IS NOT NULL AND c.tsv @@ qt.sel)
      AND (SELECT count(*) FROM rare) < ${limit} LIMIT ${budgetRows(budget)}::bigint`;
  return `WITH rare AS (${scored} AND c.tsv @@ qt.sel ORDER BY bm25 DESC, c.id LIMIT ${limit})
    SELECT * FROM rare
    UNION ALL
    (SELECT c.*, ${BM25_SCORE} AS bm25 FROM (${others}) c ORDER BY bm25 DESC, c.id LIMIT ${limit})`;
}
