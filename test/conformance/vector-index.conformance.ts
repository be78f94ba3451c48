import { randomUUID } from 'node:crypto';

import type { VectorChunk, VectorIndex } from '../../core/ports/vector-index';

export interface VectorIndexConformanceOptions {
  /** Creates the index once for the suite; tests isolate themselves with fresh organization ids. */
  create: () => Promise<VectorIndex> | VectorIndex;
  destroy?: () => Promise<void> | void;
  /** Whether embeddings above 2000 dimensions are supported (3072 is the spec's size). Default true. */
  largeDimensions?: boolean;
}

const DIM = 8;

/** A unit vector pointing mostly along `axis`, tilted towards `towards` by `tilt`. */
export function unit(axis: number, towards = (axis + 1) % DIM, tilt = 0, dims = DIM): number[] {
  const v = new Array<number>(dims).fill(0);
  v[axis] = 1;
  v[towards] += tilt;
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

interface Scope {
  org: string;
  kb: string;
  doc: string;
}

const scope = (): Scope => ({ org: randomUUID(), kb: randomUUID(), doc: randomUUID() });

function chunk(s: Scope, index: number, content: string, embedding: number[], extra: Partial<VectorChunk> = {}): VectorChunk {
  return {
    id: randomUUID(),
    organizationId: s.org,
    knowledgeBaseId: s.kb,
    documentId: s.doc,
    chunkIndex: index,
    content,
    embedding,
    embeddingType: 'text',
    importance: 0.5,
    metadata: { documentTitle: 'doc.txt', chunk: index },
    ...extra,
  };
}

export function vectorIndexConformance(name: string, options: VectorIndexConformanceOptions): void {
  describe(`VectorIndex conformance: ${name}`, () => {
    let index: VectorIndex;

    beforeAll(async () => {
      index = await options.create();
    });
    afterAll(async () => {
      await index?.close();
      await options.destroy?.();
    });

    const search = (s: Scope, embedding: number[] | null, text: string | null, kbs = [s.kb], n = 10) =>
      index.search({ organizationId: s.org, knowledgeBaseIds: kbs, embedding, text, candidatesPerKnowledgeBase: n });

    it('returns nearest neighbours first with cosine similarity in 0-1, and round-trips every field', async () => {
      const s = scope();
      const near = chunk(s, 0, 'Cats purr when they are content.', unit(0, 1, 0.1), {
        importance: 0.8,
        embeddingType: 'transcript',
        metadata: { documentTitle: 'cats.md', start: 0 },
      });
      await index.upsert([
        near,
        chunk(s, 1, 'Dogs bark at the mail carrier.', unit(3)),
        chunk(s, 2, 'Parrots repeat words.', unit(0, 1, 0.9)),
      ]);
      const { vector } = await search(s, unit(0), null);
      expect(vector.map((c) => c.chunk.chunkIndex)).toEqual([0, 2, 1]);
      expect(vector[0].vectorScore!).toBeGreaterThan(0.99);
      expect(vector[0].vectorScore!).toBeLessThanOrEqual(1);
      expect(vector[2].vectorScore!).toBeGreaterThanOrEqual(0);
      expect(vector[2].vectorScore!).toBeLessThan(0.05);
      const { embedding: _e, ...stored } = near;
      expect(vector[0].chunk).toEqual({ ...stored, importance: expect.closeTo(0.8, 5) });
    });

    it('upserts by id: writing a chunk twice keeps one copy with the new content', async () => {
      const s = scope();
      const c = chunk(s, 0, 'first version', unit(1));
      await index.upsert([c]);
      await index.upsert([{ ...c, content: 'second version' }]);
      expect(await index.countByDocument(s.org, s.doc)).toBe(1);
      const { vector } = await search(s, unit(1), null);
      expect(vector.map((v) => v.chunk.content)).toEqual(['second version']);
    });

    it('finds an upserted chunk by the words of its new text, no longer by the old', async () => {
      const s = scope();
      const c = chunk(s, 0, 'walrus tusks', unit(1));
      await index.upsert([c]);
      await index.upsert([{ ...c, content: 'penguin feathers' }]);
      expect((await search(s, null, 'walrus')).text).toEqual([]);
      expect((await search(s, null, 'penguin')).text.map((v) => v.chunk.content)).toEqual(['penguin feathers']);
    });

    it('replaceDocument makes the given chunks the whole document, and is safe to repeat', async () => {
      const s = scope();
      const old = [0, 1, 2, 3].map((i) => chunk(s, i, `old chunk ${i}`, unit(i)));
      await index.upsert(old);
      const fresh = [old[0], { ...old[1], content: 'new chunk 1' }];
      const first = await index.replaceDocument({ organizationId: s.org, knowledgeBaseId: s.kb, documentId: s.doc }, fresh);
      expect(first).toEqual({ deleted: 2, written: 2 });
      const again = await index.replaceDocument({ organizationId: s.org, knowledgeBaseId: s.kb, documentId: s.doc }, fresh);
      expect(again).toEqual({ deleted: 0, written: 2 });
      expect(await index.countByDocument(s.org, s.doc)).toBe(2);
      const { vector } = await search(s, unit(1), null);
      expect(vector.map((v) => v.chunk.content).sort()).toEqual(['new chunk 1', 'old chunk 0']);
      expect(await index.replaceDocument({ organizationId: s.org, knowledgeBaseId: s.kb, documentId: s.doc }, [])).toEqual({
        deleted: 2,
        written: 0,
      });
    });

    it('never crosses organizations or knowledge bases', async () => {
      const a = scope();
      const b = { ...scope(), kb: a.kb }; // same kb id under another organization: still invisible
      const other = { ...a, kb: randomUUID(), doc: randomUUID() };
      await index.upsert([
        chunk(a, 0, 'alpha refund policy', unit(0)),
        chunk(b, 0, 'beta refund policy', unit(0)),
        chunk(other, 0, 'gamma refund policy', unit(0)),
      ]);
      const hits = await search(a, unit(0), 'refund policy');
      expect(hits.vector.map((c) => c.chunk.content)).toEqual(['alpha refund policy']);
      expect(hits.text.map((c) => c.chunk.content)).toEqual(['alpha refund policy']);
      expect(await index.deleteByDocument(a.org, b.doc)).toBe(0);
      expect(await index.deleteByKnowledgeBase(b.org, other.kb)).toBe(0);
      const both = await search(a, unit(0), null, [a.kb, other.kb]);
      expect(both.vector).toHaveLength(2);
    });

    it('takes candidates per knowledge base, so a large one cannot crowd out a small one', async () => {
      const big = scope();
      const small = { ...big, kb: randomUUID(), doc: randomUUID() };
      await index.upsert([
        ...Array.from({ length: 12 }, (_, i) => chunk(big, i, `big ${i}`, unit(0, 1, i / 100))),
        chunk(small, 0, 'small 0', unit(0, 1, 0.5)),
      ]);
      const { vector } = await search(big, unit(0), null, [big.kb, small.kb], 3);
      expect(vector.filter((c) => c.chunk.knowledgeBaseId === big.kb)).toHaveLength(3);
      expect(vector.filter((c) => c.chunk.knowledgeBaseId === small.kb)).toHaveLength(1);
    });

    it('full-text search matches any stemmed query term, scores 0-1 and favours chunks covering more terms', async () => {
      const s = scope();
      await index.upsert([
        chunk(s, 0, 'Refunds for annual plans are issued within 30 days of cancellation.', unit(0)),
        chunk(s, 1, 'Our annual conference takes place in Lisbon.', unit(1)),
        chunk(s, 2, 'The office cafeteria serves lunch at noon.', unit(2)),
      ]);
      const { text } = await search(s, null, 'How do I get a refund on an annual plan?');
      expect(text.map((c) => c.chunk.chunkIndex)).toEqual([0, 1]);
      for (const c of text) {
        expect(c.textScore!).toBeGreaterThan(0);
        expect(c.textScore!).toBeLessThanOrEqual(1);
      }
      expect(text[0].textScore!).toBeGreaterThan(text[1].textScore!);
      const none = await search(s, null, 'zebra xylophone');
      expect(none.text).toEqual([]);
    });

    it('ranks full text by BM25: a rare term outweighs a common one, shorter chunks win ties, identifiers match', async () => {
      const s = scope();
      const filler = Array.from({ length: 8 }, (_, i) =>
        chunk({ ...s, doc: randomUUID() }, i, `The server logs every request ${i}. The server restarts at night.`, unit(i % DIM)),
      );
      await index.upsert([
        ...filler,
        chunk(s, 20, 'Server server server: the server handles the server queue of the server.', unit(1)),
        chunk(s, 21, 'Pass --no-clobber to keep existing files; O_NONBLOCK makes the server socket non-blocking.', unit(2)),
        chunk(s, 22, 'Retries use exponential backoff with jitter.', unit(3)),
        chunk(
          s,
          23,
          'Backoff between retries grows exponentially, with jitter added so that clients do not retry together in lockstep.',
          unit(4),
        ),
      ]);
      const idf = await search(s, null, 'server backoff', [s.kb], 20);
      expect([22, 23]).toContain(idf.text[0].chunk.chunkIndex); // the rare term decides, not tf of the common one
      expect(idf.text[0].chunk.chunkIndex).toBe(22); // same terms, shorter chunk
      const flag = await search(s, null, 'what does --no-clobber do');
      expect(flag.text[0].chunk.chunkIndex).toBe(21);
      const constant = await search(s, null, 'O_NONBLOCK');
      expect(constant.text[0].chunk.chunkIndex).toBe(21);
    });

    it('runs both searches in one call; vector-only and text-only queries work alone', async () => {
      const s = scope();
      await index.upsert([chunk(s, 0, 'Invoices are emailed monthly.', unit(4)), chunk(s, 1, 'Passwords expire yearly.', unit(5))]);
      const hybrid = await search(s, unit(5), 'invoices');
      expect(hybrid.vector[0].chunk.chunkIndex).toBe(1);
      expect(hybrid.text.map((c) => c.chunk.chunkIndex)).toEqual([0]);
      expect(hybrid.text[0].vectorScore === null || hybrid.text[0].vectorScore < 0.1).toBe(true);
      expect((await search(s, null, null)).vector).toEqual([]);
      expect((await search(s, unit(4), '')).text).toEqual([]);
    });

    it('keeps embeddings of different sizes apart', async () => {
      const s = scope();
      await index.upsert([chunk(s, 0, 'eight dims', unit(0)), chunk({ ...s, doc: randomUUID() }, 0, 'sixteen dims', unit(0, 1, 0, 16))]);
      expect((await search(s, unit(0), null)).vector.map((c) => c.chunk.content)).toEqual(['eight dims']);
      expect((await search(s, unit(0, 1, 0, 16), null)).vector.map((c) => c.chunk.content)).toEqual(['sixteen dims']);
      expect((await search(s, null, 'dims')).text.map((c) => c.chunk.content).sort()).toEqual(['eight dims', 'sixteen dims']);
    });

    it('deletes by document and by knowledge base, returning counts', async () => {
      const s = scope();
      const doc2 = { ...s, doc: randomUUID() };
      await index.upsert([chunk(s, 0, 'a', unit(0)), chunk(s, 1, 'b', unit(1)), chunk(doc2, 0, 'c', unit(2))]);
      expect(await index.deleteByDocument(s.org, s.doc)).toBe(2);
      expect(await index.countByDocument(s.org, s.doc)).toBe(0);
      expect(await index.deleteByKnowledgeBase(s.org, s.kb)).toBe(1);
      expect((await search(s, unit(2), null)).vector).toEqual([]);
    });

    (options.largeDimensions === false ? it.skip : it)('stores and searches 3072-dimensional embeddings', async () => {
      const s = scope();
      await index.upsert([chunk(s, 0, 'large', unit(7, 8, 0, 3072)), chunk(s, 1, 'other', unit(100, 101, 0, 3072))]);
      const { vector } = await search(s, unit(7, 8, 0, 3072), null);
      expect(vector[0].chunk.content).toBe('large');
      expect(vector[0].vectorScore!).toBeGreaterThan(0.99);
    });
  });
}
