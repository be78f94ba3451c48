import { blendPrior, PRIOR_MAX_SHIFT, withLearningPrior } from '../knowledge/learning-prior';
import { chunkPrior } from './learning';

describe('chunk prior', () => {
  it('rises with positive feedback, sinks with negative, stays bounded', () => {
    const none = chunkPrior({ recentUse: 0, positive: 0, negative: 0 });
    expect(none).toBe(0);
    const liked = chunkPrior({ recentUse: 3, positive: 3, negative: 0 });
    const disliked = chunkPrior({ recentUse: 3, positive: 0, negative: 3 });
    expect(liked).toBeGreaterThan(0.5);
    expect(disliked).toBeLessThan(-0.3);
    expect(chunkPrior({ recentUse: 1e9, positive: 1e9, negative: 0 })).toBeLessThanOrEqual(1);
    expect(chunkPrior({ recentUse: 0, positive: 0, negative: 1e9 })).toBeGreaterThanOrEqual(-1);
  });
  it('use without feedback earns a little, and less as it ages (decays back to neutral)', () => {
    const fresh = chunkPrior({ recentUse: 20, positive: 0, negative: 0 });
    const old = chunkPrior({ recentUse: 0.5, positive: 0, negative: 0 });
    expect(fresh).toBeGreaterThan(old);
    expect(old).toBeGreaterThan(0);
    expect(fresh).toBeLessThanOrEqual(0.2);
  });
});

describe('blending the prior into ranking', () => {
  it('shifts importance by at most PRIOR_MAX_SHIFT and keeps it in 0-1', () => {
    expect(blendPrior(0.5, 1)).toBe(0.5 + PRIOR_MAX_SHIFT);
    expect(blendPrior(0.5, -1)).toBe(0.5 - PRIOR_MAX_SHIFT);
    expect(blendPrior(0.9, 1)).toBe(1);
    expect(blendPrior(0.5, 7)).toBe(blendPrior(0.5, 1));
  });
  it('applies priors to the chunks that have one and leaves the pool alone without a source', async () => {
    const pool = [{ chunk: { id: 'a', importance: 0.5 } }, { chunk: { id: 'b', importance: 0.5 } }];
    expect(await withLearningPrior(null, 'org', pool)).toBe(pool);
    const source = { priorsFor: async () => new Map([['b', 0.4]]) };
    const out = await withLearningPrior(source, 'org', pool);
    expect(out.map((c) => c.chunk.importance)).toEqual([0.5, 0.7]);
    expect(pool[1].chunk.importance).toBe(0.5); // not mutated
  });
});
