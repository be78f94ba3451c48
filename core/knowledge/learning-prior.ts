/**
 * The learning prior's one hook into ranking (spec 4.6, issue 12). Each chunk may carry a prior in [-1, 1]
 * learned from use and feedback (computed by the analytics area); while a knowledge base's prior is active it
 * shifts the chunk's importance, and so its combined score by at most weights.importance * PRIOR_MAX_SHIFT
 * (0.15 * 0.5 = 0.075): it reorders close results, it cannot lift an irrelevant chunk over a relevant one.
 */

/** Largest change of a chunk's importance (0-1) the prior can make. */
export const PRIOR_MAX_SHIFT = 0.5;

/** Priors of the given chunks in knowledge bases whose prior is enabled; chunks without one are absent. */
export interface LearningPriorSource {
  priorsFor(organizationId: string, chunkIds: string[]): Promise<Map<string, number>>;
}

const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));

/** Importance after the prior: the one blending rule. */
export const blendPrior = (importance: number, prior: number) => clamp(importance + PRIOR_MAX_SHIFT * clamp(prior, -1, 1), 0, 1);

/** The pool with the priors blended into each chunk's importance (the pool itself when there is no prior). */
export async function withLearningPrior<T extends { chunk: { id: string; importance: number } }>(
  source: LearningPriorSource | null | undefined,
  organizationId: string,
  pool: T[],
): Promise<T[]> {
  if (!source || pool.length === 0) return pool;
  const priors = await source.priorsFor(
    organizationId,
    pool.map((c) => c.chunk.id),
  );
  if (priors.size === 0) return pool;
  return pool.map((c) => {
    const prior = priors.get(c.chunk.id);
    return prior === undefined ? c : { ...c, chunk: { ...c.chunk, importance: blendPrior(c.chunk.importance, prior) } };
  });
}
