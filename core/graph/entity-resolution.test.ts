import { resolveEntities } from './entity-resolution';

const entity = (keys: string[], name: string, aliases: string[], confidence: number, type = 'person') => ({
  keys,
  name,
  type,
  aliases,
  confidence,
  mentions: [{ chunkIndex: 0, count: 1 }],
});

describe('entity resolution of a document graph', () => {
  let n = 0;
  const newId = () => `new-${++n}`;
  beforeEach(() => (n = 0));

  it('creates an entity once and inserts it with what later mentions in the same document added', () => {
    const r = resolveEntities(
      [
        entity(['ada lovelace'], 'Ada Lovelace', [], 0.6),
        entity(['ada lovelace', 'countess of lovelace'], 'Ada Lovelace', ['Countess of Lovelace'], 0.9),
      ],
      [],
      newId,
    );
    expect(r.ids).toEqual(['new-1', 'new-1']);
    expect(r.inserts).toEqual([{ id: 'new-1', name: 'Ada Lovelace', type: 'person', aliases: ['Countess of Lovelace'], confidence: 0.9 }]);
    expect(r.changed).toEqual([]);
    expect(r.byKey.get('countess of lovelace')).toBe('new-1');
  });

  it('resolves known keys to their entity and only grows its aliases and confidence', () => {
    const found = [{ key: 'charles babbage', id: 'e1', name: 'Charles Babbage', aliases: ['Babbage'], confidence: 0.8 }];
    const grows = resolveEntities([entity(['charles babbage'], 'C. Babbage', ['Babbage'], 0.5, 'concept')], found, newId);
    expect(grows.ids).toEqual(['e1']);
    expect(grows.inserts).toEqual([]);
    expect(grows.changed).toEqual([{ id: 'e1', name: 'Charles Babbage', aliases: ['Babbage', 'C. Babbage'], confidence: 0.8 }]);
    const same = resolveEntities([entity(['charles babbage'], 'Charles Babbage', ['Babbage'], 0.7)], found, newId);
    expect(same.changed).toEqual([]);
  });
});
