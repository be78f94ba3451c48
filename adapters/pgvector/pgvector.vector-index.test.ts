import { randomUUID } from 'node:crypto';

import type { VectorChunk } from '../../core/ports/vector-index';
import { vectorIndexConformance } from '../../test/conformance/vector-index.conformance';
import { createScratchDatabase, pgvectorOnServer, type ScratchDatabase } from '../../test/support/databases';
import { type Database, openDatabase } from '../postgres/database';
import { textScoreOf } from './pgvector.bm25';
import { PGVECTOR_MISSING_MESSAGE, spaceFor } from './pgvector.schema';
import { moveStagedRows } from './pgvector.staging';
import { PgvectorVectorIndex } from './pgvector.vector-index';

let db: Database;

vectorIndexConformance('pgvector on PGlite', {
  create: async () => {
    db = await openDatabase({ memory: true });
    return PgvectorVectorIndex.open({ knex: db.knex });
  },
  destroy: () => db?.close(),
});

let stagedDb: Database;
vectorIndexConformance('pgvector on PGlite, every document staged and linked into HNSW in the background', {
  create: async () => {
    stagedDb = await openDatabase({ memory: true });
    return PgvectorVectorIndex.open({ knex: stagedDb.knex, deferIndexAbove: 0 });
  },
  destroy: () => stagedDb?.close(),
});

let slicedDb: Database;
vectorIndexConformance('pgvector on PGlite, new documents written two rows a transaction', {
  create: async () => {
    slicedDb = await openDatabase({ memory: true });
    return PgvectorVectorIndex.open({ knex: slicedDb.knex, rowsPerTransaction: 2 });
  },
  destroy: () => slicedDb?.close(),
});

// The same suite on the real Postgres server (pgvector built from vendor/pgvector): the server's planner, its
// default HNSW build and concurrent sessions, none of which PGlite has.
let serverDb: Database | undefined;
let serverScratch: ScratchDatabase | undefined;
if (pgvectorOnServer)
  vectorIndexConformance('pgvector on a Postgres server', {
    create: async () => {
      serverScratch = await createScratchDatabase('pgvector_conformance');
      serverDb = await openDatabase({ url: serverScratch.url, poolMax: 4 });
      return PgvectorVectorIndex.open({ knex: serverDb.knex });
    },
    destroy: async () => {
      await serverDb?.close();
      await serverScratch?.drop();
    },
  });

const realPostgres = process.env.TEST_REAL_SERVICES === '1' ? describe : describe.skip;

realPostgres('pgvector on a Postgres server without the extension', () => {
  it('fails at boot with a message naming the extension and the alternative', async () => {
    const server = await openDatabase({ url: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', poolMax: 1 });
    try {
      const available = await server.knex.raw("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'");
      if (available.rows.length) return; // this server has pgvector: nothing to check here
      await expect(PgvectorVectorIndex.open({ knex: server.knex })).rejects.toThrow(PGVECTOR_MISSING_MESSAGE);
      await expect(PgvectorVectorIndex.open({ knex: server.knex })).rejects.toThrow(/VECTOR_INDEX=elasticsearch/);
    } finally {
      await server.close();
    }
  });
});

describe('pgvector index shared by two processes', () => {
  let shared: Database;
  beforeAll(async () => {
    shared = await openDatabase({ memory: true });
  });
  afterAll(() => shared.close());

  it('finds chunks of an embedding size another instance created after this one last looked', async () => {
    const reader = await PgvectorVectorIndex.open({ knex: shared.knex });
    const writer = await PgvectorVectorIndex.open({ knex: shared.knex });
    const org = '00000000-0000-4000-8000-000000000001';
    const kb = '00000000-0000-4000-8000-000000000002';
    const doc = '00000000-0000-4000-8000-000000000003';
    const unit = (i: number) => Array.from({ length: 8 }, (_, j) => (j === i ? 1 : 0));
    const query = { organizationId: org, knowledgeBaseIds: [kb], embedding: unit(0), text: 'lighthouse', candidatesPerKnowledgeBase: 5 };
    expect(await reader.search(query)).toEqual({ vector: [], text: [] }); // no 8-dimension table yet: the reader caches that
    await writer.upsert([
      {
        id: '00000000-0000-4000-8000-000000000004',
        organizationId: org,
        knowledgeBaseId: kb,
        documentId: doc,
        chunkIndex: 0,
        content: 'The lighthouse keeper',
        embedding: unit(0),
        embeddingType: 'text',
        importance: 0.5,
        metadata: {},
      },
    ]);
    const found = await reader.search(query);
    expect(found.vector.map((c) => c.chunk.content)).toEqual(['The lighthouse keeper']);
    expect(found.text.map((c) => c.chunk.content)).toEqual(['The lighthouse keeper']);
  });
});

describe('pgvector BM25 term statistics', () => {
  let db2: Database;
  let index: PgvectorVectorIndex;
  beforeAll(async () => {
    db2 = await openDatabase({ memory: true });
    index = await PgvectorVectorIndex.open({ knex: db2.knex });
  });
  afterAll(() => db2.close());

  const stats = async (kb: string) => {
    const row = await db2.knex('kv_kb_text_stats').where({ knowledge_base_id: kb }).first();
    const df = await db2.knex('kv_kb_term_df').where({ knowledge_base_id: kb }).select('term', 'df');
    return { chunks: row ? Number(row.chunks) : 0, df: Object.fromEntries(df.map((r: { term: string; df: number }) => [r.term, r.df])) };
  };
  const at = (org: string, kb: string, doc: string, i: number, content: string): VectorChunk => ({
    id: randomUUID(),
    organizationId: org,
    knowledgeBaseId: kb,
    documentId: doc,
    chunkIndex: i,
    content,
    embedding: [1, 0, 0, 0],
    embeddingType: 'text',
    importance: 0.5,
    metadata: {},
  });

  it('follows inserts, replacements and deletions, and the ranking follows the statistics', async () => {
    const org = randomUUID();
    const kb = randomUUID();
    const docs = Array.from({ length: 6 }, () => randomUUID());
    // "alpha" in five documents, "beta" in one: beta is the rare term.
    await index.upsert(docs.slice(0, 5).map((d, i) => at(org, kb, d, 0, `alpha note ${i}`)));
    await index.upsert([at(org, kb, docs[5], 0, 'beta note')]);
    expect(await stats(kb)).toMatchObject({ chunks: 6, df: { alpha: 5, beta: 1, note: 6 } });
    const query = { organizationId: org, knowledgeBaseIds: [kb], embedding: null, text: 'alpha beta', candidatesPerKnowledgeBase: 10 };
    expect((await index.search(query)).text[0].chunk.documentId).toBe(docs[5]);

    // Replace four alpha documents by beta ones: now alpha is the rare term.
    for (const d of docs.slice(0, 4))
      await index.replaceDocument({ organizationId: org, knowledgeBaseId: kb, documentId: d }, [at(org, kb, d, 0, 'beta again')]);
    expect(await stats(kb)).toMatchObject({ chunks: 6, df: { alpha: 1, beta: 5, note: 2 } });
    expect((await index.search(query)).text[0].chunk.documentId).toBe(docs[4]);

    await index.deleteByDocument(org, docs[4]);
    expect((await stats(kb)).df.alpha).toBeUndefined();
    await index.deleteByKnowledgeBase(org, kb);
    expect(await stats(kb)).toEqual({ chunks: 0, df: {} });
  });

  const textQuery = (org: string, kb: string, text: string) => ({
    organizationId: org,
    knowledgeBaseIds: [kb],
    embedding: null,
    text,
    candidatesPerKnowledgeBase: 10,
  });

  it('finds identifiers inside dotted names and scoped packages, and document titles', async () => {
    const org = randomUUID();
    const kb = randomUUID();
    const [dotted, scoped, titled, other] = [0, 1, 2, 3].map(() => randomUUID());
    await index.upsert([
      at(org, kb, dotted, 0, 'Call doc.createNode(value) to wrap a value in a node.'),
      at(org, kb, scoped, 0, 'Install @acme/widgets and import it from src/lib/loader.js.'),
      { ...at(org, kb, titled, 0, 'It formats durations for humans.'), metadata: { documentTitle: 'chronoprint' } },
      at(org, kb, other, 0, 'Nodes, widgets and loaders of another kind.'),
    ]);
    const top = async (text: string) => (await index.search(textQuery(org, kb, text))).text[0]?.chunk.documentId;
    expect(await top('What is createNode?')).toBe(dotted);
    expect(await top('acme')).toBe(scoped);
    expect(await top('loader.js')).toBe(scoped);
    expect(await top('What is chronoprint for?')).toBe(titled);
  });

  it('keeps BM25 order among strong matches instead of tying them at text score 1', async () => {
    const org = randomUUID();
    const kb = randomUUID();
    const docs = Array.from({ length: 6 }, () => randomUUID());
    await index.upsert([
      ...docs.slice(2).map((d, i) => at(org, kb, d, 0, `unrelated filler text number ${i}`)),
      // same length, the term three times against once: both clear a full match, BM25 prefers the first
      at(org, kb, docs[0], 0, 'quux quux quux alpha'),
      at(org, kb, docs[1], 0, 'quux beta gamma delta'),
    ]);
    const { text } = await index.search(textQuery(org, kb, 'quux'));
    expect(text.map((c) => c.chunk.documentId)).toEqual([docs[0], docs[1]]);
    expect(text[1].textScore).toBeGreaterThanOrEqual(0.7);
    expect(text[0].textScore!).toBeGreaterThan(text[1].textScore!);
  });

  it('scores Okapi BM25 exactly, counting only the query lexemes of each chunk', async () => {
    const org = randomUUID();
    const kb = randomUUID();
    const [one, other, twice] = [0, 1, 2].map(() => randomUUID());
    // every chunk has 2 distinct lexemes (BM25 length), so avgdl = 2 and the length factor is 1
    await index.upsert([at(org, kb, one, 0, 'quux alpha'), at(org, kb, other, 0, 'beta gamma'), at(org, kb, twice, 0, 'quux quux delta')]);
    const idf = (df: number) => Math.log(1 + (3 - df + 0.5) / (df + 0.5));
    const saturate = (tf: number) => (tf * 2.2) / (tf + 1.2);
    const scores = async (text: string) =>
      Object.fromEntries((await index.search(textQuery(org, kb, text))).text.map((c) => [c.chunk.documentId, c.textScore]));
    // ratio = bm25 / sum of the query terms' idf, mapped by textScoreOf
    expect(await scores('quux')).toEqual({
      [one]: expect.closeTo(textScoreOf(1), 6),
      [twice]: expect.closeTo(textScoreOf(saturate(2)), 6),
    });
    const total = idf(2) + idf(1);
    expect(await scores('quux alpha')).toEqual({
      [one]: expect.closeTo(textScoreOf(1), 6),
      [twice]: expect.closeTo(textScoreOf((idf(2) * saturate(2)) / total), 6),
    });
  });

  it('migration 0025 regenerates existing chunk tables and their term statistics', async () => {
    const org = randomUUID();
    const kb = randomUUID();
    const doc = randomUUID();
    await index.upsert([{ ...at(org, kb, doc, 0, 'Call doc.createNode(value) here.'), metadata: { documentTitle: 'nodekit' } }]);
    // back to the schema before 0025: tsv from the raw content, statistics to match, migration not applied
    await db2.knex.raw(`ALTER TABLE kv_chunks_4 DROP COLUMN tsv`);
    await db2.knex.raw(`ALTER TABLE kv_chunks_4 ADD COLUMN tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', content)) STORED`);
    await db2.knex.raw(`DELETE FROM kv_kb_term_df WHERE knowledge_base_id = ?`, [kb]);
    await db2.knex.raw(
      `INSERT INTO kv_kb_term_df (knowledge_base_id, term, df) SELECT ?, l, 1 FROM kv_chunks_4, unnest(tsvector_to_array(tsv)) l WHERE document_id = ?`,
      [kb, doc],
    );
    await db2.knex('vector_migrations').where({ name: '0025_search_text_splits_identifiers' }).delete();
    expect((await stats(kb)).df).toHaveProperty(['doc.createnode']);

    const reopened = await PgvectorVectorIndex.open({ knex: db2.knex });
    const { df } = await stats(kb);
    expect(df).toMatchObject({ createnod: 1, nodekit: 1, doc: 1 });
    expect(df).not.toHaveProperty(['doc.createnode']);
    const { text } = await reopened.search({ ...textQuery(org, kb, 'createNode'), candidatesPerKnowledgeBase: 5 });
    expect(text.map((c) => c.chunk.documentId)).toEqual([doc]);
  });
});

describe('pgvector vector text', () => {
  let db3: Database;
  beforeAll(async () => {
    db3 = await openDatabase({ memory: true });
  });
  afterAll(() => db3.close());

  it('stores every entry as the float32 nearest to it, tiny, negative and repeating ones included', async () => {
    const index = await PgvectorVectorIndex.open({ knex: db3.knex });
    const embedding = [1 / 3, -2 / 3, 1e-20, -7.006e-8, 0.1, 123456.789, 0, -0.5];
    const chunk: VectorChunk = {
      id: randomUUID(),
      organizationId: randomUUID(),
      knowledgeBaseId: randomUUID(),
      documentId: randomUUID(),
      chunkIndex: 0,
      content: 'values',
      embedding,
      embeddingType: 'text',
      importance: 0.5,
      metadata: {},
    };
    await index.upsert([chunk]);
    const row = await db3.knex('kv_chunks_8').where({ id: chunk.id }).select(db3.knex.raw('embedding::real[] AS e')).first();
    // Postgres prints each real in its shortest exact form; read back as float32 it must be the same number
    expect((row.e as number[]).map(Math.fround)).toEqual(embedding.map(Math.fround));
  });
});

describe('pgvector staged writes of large documents', () => {
  let db4: Database;
  let index: PgvectorVectorIndex;
  const DIMS = 16;
  beforeAll(async () => {
    db4 = await openDatabase({ memory: true });
    index = await PgvectorVectorIndex.open({ knex: db4.knex, deferIndexAbove: 20 });
  });
  afterAll(async () => {
    await index.close();
    await db4.close();
  });

  const words = ['harbour', 'lighthouse', 'ferry', 'tide', 'keeper', 'lamp', 'storm', 'pier'];
  /** A document of `n` chunks with distinct contents and directions. */
  const documentOf = (org: string, kb: string, doc: string, n: number): VectorChunk[] =>
    Array.from({ length: n }, (_, i) => {
      const v = Array.from({ length: DIMS }, (_, j) => Math.sin((i + 1) * (j + 3)) + (j === i % DIMS ? 2 : 0));
      return {
        id: randomUUID(),
        organizationId: org,
        knowledgeBaseId: kb,
        documentId: doc,
        chunkIndex: i,
        content: `Chunk ${i} about the ${words[i % 8]} and the ${words[(i * 3) % 8]} ${words[(i * 5) % 8]}`,
        embedding: v,
        embeddingType: 'text',
        importance: 0.5,
        metadata: { i },
      };
    });
  const inTables = async (doc: string) => {
    const count = async (t: string) => Number((await db4.knex(t).where({ document_id: doc }).count({ n: '*' }))[0].n);
    return { indexed: await count(`kv_chunks_${DIMS}`), staged: await count(`kv_chunks_${DIMS}_staged`) };
  };
  const ids = (r: { vector: { chunk: { id: string } }[]; text: { chunk: { id: string } }[] }) => ({
    vector: r.vector.map((c) => c.chunk.id),
    text: r.text.map((c) => c.chunk.id),
  });

  it('answers searches the same while its rows are staged or moving as once they are all in the HNSW index', async () => {
    const [org, kb, doc] = [randomUUID(), randomUUID(), randomUUID()];
    const chunks = documentOf(org, kb, doc, 200);
    const queries = [0, 7, 133].map((i) => ({
      organizationId: org,
      knowledgeBaseIds: [kb],
      embedding: chunks[i].embedding,
      text: `${words[i % 8]} ${words[(i * 3) % 8]}`,
      candidatesPerKnowledgeBase: 10,
    }));
    expect(await index.replaceDocument({ organizationId: org, knowledgeBaseId: kb, documentId: doc }, chunks)).toEqual({
      deleted: 0,
      written: 200,
    });
    expect((await inTables(doc)).staged).toBeGreaterThan(0); // 16 rows a turn: most still wait
    expect(await index.countByDocument(org, doc)).toBe(200);
    const whileMoving = [];
    for (const q of queries) whileMoving.push(ids(await index.search(q)));

    await index.whenIndexed();
    expect(await inTables(doc)).toEqual({ indexed: 200, staged: 0 });
    for (const [i, q] of queries.entries()) {
      const found = ids(await index.search(q));
      expect(found).toEqual(whileMoving[i]);
      expect(found.vector[0]).toBe(chunks[[0, 7, 133][i]].id); // a chunk's own vector finds it first
      expect(found.text.length).toBeGreaterThan(0);
    }
  });

  it('leaves no rows behind when the document is replaced or deleted while its rows move', async () => {
    const [org, kb, doc] = [randomUUID(), randomUUID(), randomUUID()];
    await index.replaceDocument({ organizationId: org, knowledgeBaseId: kb, documentId: doc }, documentOf(org, kb, doc, 50));
    const second = documentOf(org, kb, doc, 40);
    await index.replaceDocument({ organizationId: org, knowledgeBaseId: kb, documentId: doc }, second);
    expect(await index.countByDocument(org, doc)).toBe(40);
    await index.whenIndexed();
    const rows = await db4.knex(`kv_chunks_${DIMS}`).where({ document_id: doc }).select('id');
    expect(rows.map((r: { id: string }) => r.id).sort()).toEqual(second.map((c) => c.id).sort());

    await index.replaceDocument({ organizationId: org, knowledgeBaseId: kb, documentId: doc }, documentOf(org, kb, doc, 45));
    expect(await index.deleteByDocument(org, doc)).toBe(45);
    await index.whenIndexed();
    expect(await inTables(doc)).toEqual({ indexed: 0, staged: 0 });
    const stats = await db4.knex('kv_kb_text_stats').where({ knowledge_base_id: kb }).first();
    expect(stats).toBeUndefined(); // the term statistics followed every move and deletion back to nothing
  });

  /** A document written by an index whose mover is stopped: its rows stay staged until moved by hand. */
  const stagedDocument = async (org: string, kb: string, doc: string, n: number) => {
    const stopped = await PgvectorVectorIndex.open({ knex: db4.knex, deferIndexAbove: 20 });
    await stopped.close();
    const chunks = documentOf(org, kb, doc, n);
    await stopped.replaceDocument({ organizationId: org, knowledgeBaseId: kb, documentId: doc }, chunks);
    return chunks;
  };
  /** The knowledge base's BM25 statistics as kept, and as counted afresh from both tables' rows. */
  const statistics = async (kb: string) => {
    const rows = `(SELECT tsv FROM kv_chunks_${DIMS} WHERE knowledge_base_id = :kb UNION ALL SELECT tsv FROM kv_chunks_${DIMS}_staged WHERE knowledge_base_id = :kb) r`;
    const keptRow = await db4.knex('kv_kb_text_stats').where({ knowledge_base_id: kb }).first();
    const keptDf = await db4.knex('kv_kb_term_df').where({ knowledge_base_id: kb }).select('term', 'df');
    const counted = (
      await db4.knex.raw(`SELECT count(*)::int AS chunks, coalesce(sum(length(tsv)), 0)::int AS lexemes FROM ${rows}`, { kb })
    ).rows[0];
    const countedDf = (
      await db4.knex.raw(`SELECT l AS term, count(*)::int AS df FROM ${rows}, unnest(tsvector_to_array(r.tsv)) l GROUP BY 1`, { kb })
    ).rows;
    const byTerm = (list: { term: string; df: number }[]) => Object.fromEntries(list.map((d) => [d.term, Number(d.df)]));
    return {
      kept: { chunks: Number(keptRow?.chunks ?? 0), lexemes: Number(keptRow?.lexemes ?? 0), df: byTerm(keptDf) },
      counted: { chunks: counted.chunks, lexemes: counted.lexemes, df: byTerm(countedDf) },
    };
  };
  /** The row versions of the knowledge base's statistics: a rewritten row gets a new xmin. */
  const versions = async (kb: string) =>
    (
      await db4.knex.raw(
        `SELECT term, xmin::text AS v FROM kv_kb_term_df WHERE knowledge_base_id = ? UNION ALL SELECT '', xmin::text FROM kv_kb_text_stats WHERE knowledge_base_id = ?`,
        [kb, kb],
      )
    ).rows;

  it('moves rows without rewriting their term statistics, which stay exact', async () => {
    const [org, kb, doc] = [randomUUID(), randomUUID(), randomUUID()];
    await stagedDocument(org, kb, doc, 40);
    const before = await versions(kb);
    expect(before.length).toBeGreaterThan(8);
    expect(await moveStagedRows(db4.knex, spaceFor(DIMS), 1000)).toBe(40);
    expect(await inTables(doc)).toEqual({ indexed: 40, staged: 0 });
    expect(await versions(kb)).toEqual(before); // the move's triggers left every statistics row as it was
    const { kept, counted } = await statistics(kb);
    expect(kept).toEqual(counted);
    expect(kept.chunks).toBe(40);

    await index.deleteByDocument(org, doc); // and outside a move, the triggers count again
    expect((await statistics(kb)).kept).toEqual({ chunks: 0, lexemes: 0, df: {} });
  });

  it('keeps the term statistics exact when a move replaces a copy of a row in the indexed table', async () => {
    const [org, kb, doc] = [randomUUID(), randomUUID(), randomUUID()];
    const chunks = await stagedDocument(org, kb, doc, 30);
    // an older copy of one staged row in the indexed table, with words no other row has (not something writers leave)
    const { rows } = await db4.knex.raw(`SELECT * FROM kv_chunks_${DIMS}_staged WHERE id = ?`, [chunks[3].id]);
    const { tsv: _tsv, ...copy } = rows[0];
    await db4.knex(`kv_chunks_${DIMS}`).insert({ ...copy, content: 'zeppelin hangar mooring mast' });
    expect((await statistics(kb)).kept.df.zeppelin).toBe(1);
    expect(await moveStagedRows(db4.knex, spaceFor(DIMS), 1000)).toBe(30);
    const { kept, counted } = await statistics(kb);
    expect(kept).toEqual(counted);
    expect(kept.chunks).toBe(30);
    expect(kept.df.zeppelin).toBeUndefined();
  });

  it('lets another user run consecutive statements between two batches of the mover', async () => {
    const [org, kb, doc] = [randomUUID(), randomUUID(), randomUUID()];
    await stagedDocument(org, kb, doc, 480);
    const staged = async () => Number((await db4.knex(`kv_chunks_${DIMS}_staged`).where({ document_id: doc }).count({ n: '*' }))[0].n);
    const mover = await PgvectorVectorIndex.open({ knex: db4.knex, deferIndexAbove: 20 }); // it moves what it finds staged
    // A request of three statements: its first waits behind a batch, and the mover, seeing that, lets the other
    // two through before its next batch.
    const together: boolean[] = [];
    for (;;) {
      const first = await staged();
      await db4.knex.raw('SELECT 1');
      const last = await staged();
      if (last === 0) break;
      together.push(first === last);
    }
    await mover.close();
    expect(together.length).toBeGreaterThanOrEqual(3);
    expect(together.filter(Boolean).length).toBeGreaterThanOrEqual(together.length / 2); // 87% here, 0% without the pause
  });

  it('moves rows a stopped process left staged when an index opens', async () => {
    const [org, kb, doc] = [randomUUID(), randomUUID(), randomUUID()];
    const stopped = await PgvectorVectorIndex.open({ knex: db4.knex, deferIndexAbove: 20 });
    await stopped.close(); // closed before it writes: nothing moves its rows
    await stopped.replaceDocument({ organizationId: org, knowledgeBaseId: kb, documentId: doc }, documentOf(org, kb, doc, 30));
    expect(await inTables(doc)).toEqual({ indexed: 0, staged: 30 });
    const next = await PgvectorVectorIndex.open({ knex: db4.knex, deferIndexAbove: 20 });
    await next.whenIndexed();
    expect(await inTables(doc)).toEqual({ indexed: 30, staged: 0 });
    await next.close();
  });
});

describe('pgvector writes of a new document on the embedded store', () => {
  const DIMS = 8;
  const documentOf = (org: string, kb: string, doc: string, n: number): VectorChunk[] =>
    Array.from({ length: n }, (_, i) => ({
      id: randomUUID(),
      organizationId: org,
      knowledgeBaseId: kb,
      documentId: doc,
      chunkIndex: i,
      content: `Paragraph ${i} of the harbour log`,
      embedding: Array.from({ length: DIMS }, (_, j) => Math.cos((i + 2) * (j + 1))),
      embeddingType: 'text' as const,
      importance: 0.5,
      metadata: {},
    }));

  /**
   * Whether a statement sent once the document's first row goes out is answered before the document of `rows`
   * chunks is written, and how many INSERTs wrote it. `others`: 'statement' sends that statement; 'holder' also
   * keeps a pool connection checked out (idle) during the write, so the store is never seen free; 'none' leaves
   * the writer alone.
   */
  async function otherStatementGetsThrough(
    rowsPerTransaction: number,
    deferIndexAbove?: number,
    rows = 48,
    others: 'statement' | 'holder' | 'none' = 'statement',
  ) {
    const db5 = await openDatabase({ memory: true });
    try {
      const index = await PgvectorVectorIndex.open({ knex: db5.knex, rowsPerTransaction, deferIndexAbove });
      const [org, kb, doc] = [randomUUID(), randomUUID(), randomUUID()];
      const order: string[] = [];
      let other: Promise<unknown> | undefined;
      let inserts = 0;
      db5.knex.on('query', (q: { sql: string }) => {
        if (!/^insert into "kv_chunks_\d+(_staged)?"/i.test(q.sql)) return;
        inserts++;
        if (others !== 'none') other ??= db5.knex.raw('select 1').then(() => order.push('other statement'));
      });
      const client = db5.knex.client as { acquireConnection(): Promise<unknown>; releaseConnection(c: unknown): Promise<void> };
      const held = others === 'holder' ? await client.acquireConnection() : null;
      await index.replaceDocument({ organizationId: org, knowledgeBaseId: kb, documentId: doc }, documentOf(org, kb, doc, rows));
      order.push('document written');
      if (held) await client.releaseConnection(held);
      await other;
      expect(await index.countByDocument(org, doc)).toBe(rows);
      await index.whenIndexed();
      return { gotThrough: order[0] === 'other statement', inserts };
    } finally {
      await db5.close();
    }
  }

  it('lets other requests’ statements run while a large new document is written', async () => {
    expect((await otherStatementGetsThrough(8)).gotThrough).toBe(true);
    // With the store in use by someone else throughout: 8 rows a transaction.
    expect(await otherStatementGetsThrough(8, undefined, 48, 'holder')).toEqual({ gotThrough: true, inserts: 6 });
  });

  it('writes a staged document four times as many rows a transaction (no HNSW linking in them), still letting others through', async () => {
    expect((await otherStatementGetsThrough(8, 0, 200)).gotThrough).toBe(true);
    // 6 x 32 rows and 8 into the staged table (the mover's statements are not INSERTs)
    expect(await otherStatementGetsThrough(8, 0, 200, 'holder')).toEqual({ gotThrough: true, inserts: 7 });
  });

  it('writes four times as many rows a transaction while no one else uses the store', async () => {
    expect((await otherStatementGetsThrough(8, 0, 200, 'none')).inserts).toBe(2); // 128 and 72 staged rows
    expect((await otherStatementGetsThrough(8, undefined, 48, 'none')).inserts).toBe(2); // 32 and 16 linked rows
  });

  it('holds them for the whole document when written in one transaction (the server default)', async () => {
    expect(await otherStatementGetsThrough(0)).toEqual({ gotThrough: false, inserts: 1 });
  });
});
