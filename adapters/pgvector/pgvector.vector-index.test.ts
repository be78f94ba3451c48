import { randomUUID } from 'node:crypto';

import type { VectorChunk } from '../../core/ports/vector-index';
import { vectorIndexConformance } from '../../test/conformance/vector-index.conformance';
import { type Database, openDatabase } from '../postgres/database';
import { PGVECTOR_MISSING_MESSAGE } from './pgvector.schema';
import { PgvectorVectorIndex } from './pgvector.vector-index';

let db: Database;

vectorIndexConformance('pgvector on PGlite', {
  create: async () => {
    db = await openDatabase({ memory: true });
    return PgvectorVectorIndex.open({ knex: db.knex });
  },
  destroy: () => db?.close(),
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
