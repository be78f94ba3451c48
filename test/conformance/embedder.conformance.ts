import type { Embedder } from '../../core/ports/embedder';

export interface EmbedderHarness {
  embedder: Embedder;
  /** A size the adapter can produce. */
  dimensions: number;
}

const norm = (v: number[]) => Math.hypot(...v);

/** Shared behaviour of every Embedder adapter, run against local fakes. */
export function embedderConformance(name: string, makeHarness: () => EmbedderHarness): void {
  describe(`Embedder conformance: ${name}`, () => {
    let h: EmbedderHarness;
    beforeEach(() => {
      h = makeHarness();
    });
    const embed = (texts: string[], purpose: 'document' | 'query' = 'document') =>
      h.embedder.embed(texts, { dimensions: h.dimensions, purpose });

    it('describes itself with an id and a provider/name model id', () => {
      expect(h.embedder.id.length).toBeGreaterThan(0);
      expect(h.embedder.model).toMatch(/^[a-z0-9][a-z0-9._-]*\/\S+$/);
    });

    it('returns one unit vector of the requested size per text, in input order, with its model and usage', async () => {
      const texts = ['alpha', 'a much longer text about refunds and invoices', 'z'];
      const result = await embed(texts);
      expect(result.model).toBe(h.embedder.model);
      expect(result.vectors).toHaveLength(3);
      for (const v of result.vectors) {
        expect(v).toHaveLength(h.dimensions);
        expect(v.every(Number.isFinite)).toBe(true);
        expect(norm(v)).toBeCloseTo(1, 6);
      }
      expect(result.usage.tokens).toBeGreaterThan(0);
      const reversed = await embed([...texts].reverse());
      expect(reversed.vectors).toEqual([...result.vectors].reverse());
    });

    it('is deterministic and serves both purposes', async () => {
      const [a] = (await embed(['Refunds take fourteen days.'], 'document')).vectors;
      const [b] = (await embed(['Refunds take fourteen days.'], 'document')).vectors;
      expect(b).toEqual(a);
      const [q] = (await embed(['Refunds take fourteen days.'], 'query')).vectors;
      expect(q).toHaveLength(h.dimensions);
    });

    it('embeds inputs larger than one provider batch, all of them, in order', async () => {
      const texts = Array.from({ length: 130 }, (_, i) => `text number ${i} ${'x'.repeat(i % 7)}`);
      const result = await embed(texts, 'query');
      expect(result.vectors).toHaveLength(130);
      const [last] = (await embed([texts[129]], 'query')).vectors;
      expect(result.vectors[129]).toEqual(last);
    });

    it('gives an empty text a unit vector too', async () => {
      const [v] = (await embed([''])).vectors;
      expect(v).toHaveLength(h.dimensions);
      expect(norm(v)).toBeCloseTo(1, 6);
    });
  });
}
