import { embedderConformance } from '../../test/conformance/embedder.conformance';
import { LOCAL_EMBEDDING_MODEL, LocalEmbedder } from './local-hash.embedder';
import { stem, tokenize } from './text-features';

const cosine = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + x * b[i], 0);

embedderConformance('local hashed', () => ({ embedder: new LocalEmbedder(), dimensions: 384 }));

describe('LocalEmbedder', () => {
  const embedder = new LocalEmbedder();
  const embed = async (texts: string[], dimensions = 384) => (await embedder.embed(texts, { dimensions, purpose: 'document' })).vectors;

  it('describes itself with the catalogue model id', () => {
    expect(embedder.model).toBe(LOCAL_EMBEDDING_MODEL);
    expect(embedder.model).toBe('local/hash-embed-v1');
    expect(embedder.id).toBe('local-hash-embed');
  });

  it('normalises case, accents, unicode forms and apostrophes', async () => {
    const [a, b] = await embed(['CAFÉ Résumé don\u2019t', 'cafe\u0301 resume dont']);
    expect(cosine(a, b)).toBeCloseTo(1, 10);
    expect(tokenize('Ｆｕｌｌｗｉｄｔｈ ﬁle')).toEqual(['fullwidth', 'file']);
  });

  it('stems common English suffixes so word forms meet', () => {
    expect(stem('resetting')).toBe(stem('reset'));
    expect(stem('policies')).toBe(stem('policy'));
    expect(stem('organization')).toBe(stem('organized'));
    expect(stem('running')).toBe(stem('runs'));
    expect(stem('connection')).toBe(stem('connected'));
  });

  it('scores related texts clearly above unrelated ones', async () => {
    const [query, related, paraphrase, unrelated, otherTopic] = await embed([
      'How do I reset my password?',
      'To reset your password, open Settings, choose Security and click Reset password.',
      'Passwords can be changed from the security settings page.',
      'Our office is closed on public holidays and weekends.',
      'Annual subscriptions are refunded within 14 days of cancellation.',
    ]);
    expect(cosine(query, related)).toBeGreaterThan(0.5);
    expect(cosine(query, paraphrase)).toBeGreaterThan(0.25);
    expect(cosine(query, unrelated)).toBeLessThan(0.1);
    expect(cosine(query, otherTopic)).toBeLessThan(0.1);
    expect(cosine(query, related) - Math.max(cosine(query, unrelated), cosine(query, otherTopic))).toBeGreaterThan(0.4);
  });

  it('keeps signal for near-miss spellings through character trigrams', async () => {
    const [a, b, c] = await embed(['password reset', 'pasword resett', 'holiday opening hours']);
    expect(cosine(a, b)).toBeGreaterThan(cosine(a, c) + 0.1);
  });

  it('down-weights stopwords', async () => {
    const [a, b, c] = await embed(['what is the invoice total', 'the invoice total', 'what is the weather']);
    expect(cosine(a, b)).toBeGreaterThan(0.9);
    expect(cosine(a, c)).toBeLessThan(0.2);
  });

  it('gives every text without words the same unit vector', async () => {
    const [a, b] = await embed(['', '  ... !!! ']);
    expect(b).toEqual(a);
  });

  it('rejects impossible dimensions', async () => {
    await expect(embedder.embed(['x'], { dimensions: 0, purpose: 'query' })).rejects.toMatchObject({ code: 'VALIDATION' });
    await expect(embedder.embed(['x'], { dimensions: 1.5, purpose: 'query' })).rejects.toMatchObject({ code: 'VALIDATION' });
  });
});
