import { extractOffline } from '../../core/graph/offline-extractor';
import { CORPUS } from './corpus';
import { extractionQuality } from './extraction-quality';

describe('offline graph extraction quality', () => {
  it('finds the labelled entities of the corpus with precision and recall of at least 0.75', () => {
    const q = extractionQuality();
    expect({ precisionOk: q.precision >= 0.75, recallOk: q.recall >= 0.75, ...q }).toMatchObject({ precisionOk: true, recallOk: true });
  });

  it('resolves short names, types and pattern relationships', () => {
    const r = extractOffline({ chunks: CORPUS.slice(0, 2).map((p, index) => ({ index, content: p.text })), pinned: [] });
    const ada = r.entities.find((e) => e.name === 'Ada Lovelace');
    expect(ada).toMatchObject({ type: 'person' });
    expect(ada!.aliases).toContain('Lovelace');
    expect(r.entities.find((e) => e.name === 'Analytical Engine')?.type).toBe('product');
    expect(r.relationships).toContainEqual(
      expect.objectContaining({ source: 'Ada Lovelace', target: 'Charles Babbage', type: 'worked_with' }),
    );
  });

  it('pinned entities win, with their type and aliases', () => {
    const r = extractOffline({
      chunks: [{ index: 0, content: 'the engine of babbage was never finished; the analytical engine stayed on paper.' }],
      pinned: [{ name: 'Analytical Engine', type: 'product', aliases: ['the engine'] }],
    });
    expect(r.entities).toEqual([expect.objectContaining({ name: 'Analytical Engine', type: 'product', confidence: 1 })]);
    expect(r.entities[0].mentions).toEqual([{ chunkIndex: 0, count: 2 }]);
  });
});
