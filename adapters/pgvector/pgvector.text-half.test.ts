import { randomUUID } from 'node:crypto';

import type { VectorChunk } from '../../core/ports/vector-index';
import { type Database, openDatabase } from '../postgres/database';
import { migrate } from '../postgres/migrator';
import { UNBUDGETED } from './pgvector.bm25';
import { GIN_PENDING_LIST_KB, pgvectorMigrations } from './pgvector.schema';
import { PgvectorVectorIndex } from './pgvector.vector-index';

const DIMS = 4;
const TABLE = `kv_chunks_${DIMS}`;

describe('pgvector full-text half: select budget and row layout', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openDatabase({ memory: true });
  });
  afterAll(() => db.close());

  const organizationId = randomUUID();
  const chunk = (kb: string, i: number, content: string): VectorChunk => ({
    id: randomUUID(),
    organizationId,
    knowledgeBaseId: kb,
    documentId: randomUUID(),
    chunkIndex: i,
    content,
    embedding: [1, 0, 0, i / 100],
    embeddingType: 'text',
    importance: 0.5,
    metadata: {},
  });
  const textQuery = (kb: string, text: string, candidatesPerKnowledgeBase = 10) => ({
    organizationId,
    knowledgeBaseIds: [kb],
    embedding: null,
    text,
    candidatesPerKnowledgeBase,
  });

  /**
   * 40 chunks: `zircon` in two, `quartz` in six, `granite` (common) in thirty.
   */
  async function seed(index: PgvectorVectorIndex) {
    const kb = randomUUID();
    const rows: VectorChunk[] = [];
    rows.push(chunk(kb, 0, 'zircon and quartz crystals in granite'));
    rows.push(chunk(kb, 1, 'zircon dating of old granite'));
    for (let i = 2; i < 7; i++) rows.push(chunk(kb, i, `quartz vein number ${i}`));
    for (let i = 7; i < 35; i++) rows.push(chunk(kb, i, `granite block number ${i}`));
    for (let i = 35; i < 40; i++) rows.push(chunk(kb, i, `basalt column number ${i}`));
    await index.upsert(rows);
    return { kb, byIndex: (i: number) => rows[i].id };
  }

  it('selects by the rarest term within the budget, still scores every query term, and fills the list from the others', async () => {
    // a budget of 6 chunks: zircon (2) selects, quartz (2 + 6 > 6) does not; the fallback scores up to 6 others
    const tight = await PgvectorVectorIndex.open({ knex: db.knex, textSelectBudget: { min: 6, share: 0 } });
    const unbudgeted = await PgvectorVectorIndex.open({ knex: db.knex, textSelectBudget: UNBUDGETED });
    const { kb, byIndex } = await seed(tight);

    const tightText = (await tight.search(textQuery(kb, 'zircon quartz'))).text;
    const fullText = (await unbudgeted.search(textQuery(kb, 'zircon quartz'))).text;
    // the chunk holding both terms wins on both: the budget narrows selection, not scoring
    expect(tightText[0].chunk.id).toBe(byIndex(0));
    expect(fullText[0].chunk.id).toBe(byIndex(0));
    expect(tightText[0].textScore).toBeCloseTo(fullText[0].textScore!, 6);
    // zircon selected 2 chunks, fewer than the 10 asked: the 5 other quartz chunks come from the fallback
    expect(tightText).toHaveLength(7);
    expect(tightText.map((c) => c.chunk.id)).toEqual(expect.arrayContaining([byIndex(1), byIndex(2), byIndex(6)]));
    expect(new Set(tightText.map((c) => c.chunk.id))).toEqual(new Set(fullText.map((c) => c.chunk.id)));
    expect(tightText.every((c) => (c.textScore ?? 0) > 0)).toBe(true);
    await tight.close();
    await unbudgeted.close();
  });

  it('scores at most the budget of fallback chunks when the selecting terms find too few', async () => {
    const tight = await PgvectorVectorIndex.open({ knex: db.knex, textSelectBudget: { min: 3, share: 0 } });
    const { kb } = await seed(tight);
    // zircon (2 chunks) selects; granite (30 chunks, 75%: common) only falls back, 3 of its chunks at most
    const text = (await tight.search(textQuery(kb, 'zircon granite', 20))).text;
    expect(text.filter((c) => c.chunk.content.includes('zircon'))).toHaveLength(2);
    expect(text.filter((c) => !c.chunk.content.includes('zircon'))).toHaveLength(3);
    await tight.close();
  });

  it('keeps the tsvector in the row and toasts only rows over 4 KB, on new tables and, by migration 0071, on older ones', async () => {
    const index = await PgvectorVectorIndex.open({ knex: db.knex });
    await index.upsert([chunk(randomUUID(), 0, 'creates the tables of the space')]);
    const layout = async (table: string) => {
      const r = await db.knex.raw(
        `SELECT a.attstorage AS storage, c.reloptions FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
         WHERE a.attrelid = ?::regclass AND a.attname = 'tsv'`,
        [table],
      );
      return { storage: r.rows[0].storage as string, reloptions: r.rows[0].reloptions as string[] | null };
    };
    for (const t of [TABLE, `${TABLE}_staged`]) expect(await layout(t)).toEqual({ storage: 'm', reloptions: ['toast_tuple_target=4080'] });

    // a table as it was before 0071
    for (const t of [TABLE, `${TABLE}_staged`]) {
      await db.knex.raw(`ALTER TABLE ${t} ALTER COLUMN tsv SET STORAGE EXTENDED`);
      await db.knex.raw(`ALTER TABLE ${t} RESET (toast_tuple_target)`);
    }
    expect(await layout(TABLE)).toEqual({ storage: 'x', reloptions: null });
    await db.knex('vector_migrations').where({ name: '0071_searched_columns_inline' }).delete();
    expect(await migrate(db.knex, [pgvectorMigrations()])).toEqual(['0071_searched_columns_inline']);
    for (const t of [TABLE, `${TABLE}_staged`]) expect(await layout(t)).toEqual({ storage: 'm', reloptions: ['toast_tuple_target=4080'] });

    // a 1 KB text next to its tsvector stays in the row: reading the tsvector touches no TOAST page
    const kb = randomUUID();
    let s = 12345; // incompressible words, so compression alone cannot bring the row under the threshold
    const word = () =>
      Array.from({ length: 7 }, () => String.fromCharCode(97 + ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) % 26))).join('');
    const words = Array.from({ length: 160 }, word).join(' ');
    await index.upsert([chunk(kb, 0, words.slice(0, 1000))]);
    const sizes = await db.knex.raw(
      `SELECT pg_column_size(tsv) AS stored, octet_length(tsv::text) AS text FROM ${TABLE} WHERE knowledge_base_id = ?`,
      [kb],
    );
    const toast = await db.knex.raw(`SELECT reltoastrelid::regclass::text AS t FROM pg_class WHERE oid = ?::regclass`, [TABLE]);
    const toasted = await db.knex.raw(`SELECT count(*)::int AS n FROM ${toast.rows[0].t}`);
    expect(Number(sizes.rows[0].stored)).toBeGreaterThan(1000);
    expect(toasted.rows[0].n).toBe(0);
    await index.close();
  });

  it('keeps the full-text index pending list short, on new tables and, by migration 0072, on older ones', async () => {
    const index = await PgvectorVectorIndex.open({ knex: db.knex });
    await index.upsert([chunk(randomUUID(), 0, 'creates the tables of the space')]);
    const options = async (table: string) =>
      (await db.knex.raw(`SELECT reloptions FROM pg_class WHERE oid = ?::regclass`, [`${table}_tsv_gin`])).rows[0].reloptions;
    const pendingPages = async () =>
      Number((await db.knex.raw(`SELECT gin_clean_pending_list('${TABLE}_tsv_gin'::regclass) AS n`)).rows[0].n);
    let s = 777; // distinct words, so every row adds ~120 new entries (~600 kB in all, far past 64 kB)
    const word = () =>
      Array.from({ length: 8 }, () => String.fromCharCode(97 + ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) % 26))).join('');
    const load = async () => {
      const kb = randomUUID();
      const rows = Array.from({ length: 300 }, (_, i) => chunk(kb, i, Array.from({ length: 120 }, word).join(' ')));
      for (let i = 0; i < rows.length; i += 50) await index.upsert(rows.slice(i, i + 50));
    };
    for (const t of [TABLE, `${TABLE}_staged`]) expect(await options(t)).toEqual([`gin_pending_list_limit=${GIN_PENDING_LIST_KB}`]);
    await pendingPages();
    await load();
    // what a search has to read besides the index proper: at most 64 kB of 8 kB pages
    expect(await pendingPages()).toBeLessThanOrEqual(GIN_PENDING_LIST_KB / 8);

    // an index as it was before 0072: the default 4 MB list, left to grow
    for (const t of [TABLE, `${TABLE}_staged`]) await db.knex.raw(`ALTER INDEX ${t}_tsv_gin RESET (gin_pending_list_limit)`);
    await load();
    await db.knex('vector_migrations').where({ name: '0072_short_gin_pending_lists' }).delete();
    expect(await migrate(db.knex, [pgvectorMigrations()])).toEqual(['0072_short_gin_pending_lists']);
    for (const t of [TABLE, `${TABLE}_staged`]) expect(await options(t)).toEqual([`gin_pending_list_limit=${GIN_PENDING_LIST_KB}`]);
    expect(await pendingPages()).toBe(0); // the migration merged what had been pending
    await index.close();
  });
});
