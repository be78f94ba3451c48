/**
 * The learning prior of a knowledge base (spec 4.6, issue 12): per-chunk priors learned from retrieval and
 * feedback, the switch (on by default), the refresh, and how ready each learning stage is. Ranking applies the
 * prior through core/knowledge/learning-prior.ts only.
 */
import type { Actor } from '../identity/actor';
import { knowledgeBaseFor } from '../knowledge/kb-access';
import type { Clock } from '../ports/clock';
import type { RetrievalRecorder } from '../ports/retrieval-recorder';
import type { Store } from '../ports/store';

export interface ChunkUsage {
  chunkId: string;
  documentId: string;
  retrievals: number;
  /** Retrievals weighted by recency (half-life PRIOR_HALF_LIFE_DAYS). */
  recentUse: number;
  positive: number;
  negative: number;
}

export interface ChunkPrior extends ChunkUsage {
  prior: number;
}

export interface LearningCounts {
  /** Searches and chat turns of the window that returned something from this knowledge base. */
  retrievals: number;
  /** Rated answers that used this knowledge base, and the positive ones among them. */
  ratedAnswers: number;
  positiveAnswers: number;
  /** Chunks holding a prior. */
  priorChunks: number;
}

export interface LearningStore {
  /** Absent setting: enabled (the default). */
  priorEnabled(knowledgeBaseId: string): Promise<boolean>;
  setPriorEnabled(organizationId: string, knowledgeBaseId: string, enabled: boolean): Promise<void>;
  chunkUsage(organizationId: string, knowledgeBaseId: string, since: Date, now: Date): Promise<ChunkUsage[]>;
  /** Replaces the knowledge base's priors. */
  savePriors(organizationId: string, knowledgeBaseId: string, priors: ChunkPrior[], now: Date): Promise<void>;
  counts(organizationId: string, knowledgeBaseId: string, since: Date): Promise<LearningCounts>;
  /** Knowledge bases with retrievals or feedback since their last refresh (the background job refreshes them). */
  staleKnowledgeBases(limit: number): Promise<{ organizationId: string; knowledgeBaseId: string }[]>;
}

export interface LearningDeps {
  store: Store;
  clock: Clock;
  learning: LearningStore;
  recorder: RetrievalRecorder;
}

export const PRIOR_WINDOW_DAYS = 90;
export const PRIOR_HALF_LIFE_DAYS = 30;
/** Recency-weighted uses at which the usage part of the prior is full. */
const USAGE_SATURATION = 50;
const FEEDBACK_WEIGHT = 0.8;
const USAGE_WEIGHT = 0.2;

/**
 * prior = 0.8 * (positive - negative) / (positive + negative + 2) + 0.2 * min(1, ln(1 + recentUse) / ln(51)).
 * Chunks cited in well-rated answers rise, badly rated ones sink; use without feedback earns a little and
 * fades with time (half-life 30 days), so chunks nobody retrieves any more decay back to neutral.
 */
export function chunkPrior(u: Pick<ChunkUsage, 'recentUse' | 'positive' | 'negative'>): number {
  const feedback = (u.positive - u.negative) / (u.positive + u.negative + 2);
  const usage = Math.min(1, Math.log1p(Math.max(0, u.recentUse)) / Math.log1p(USAGE_SATURATION));
  const p = FEEDBACK_WEIGHT * feedback + USAGE_WEIGHT * usage;
  return Math.round(Math.max(-1, Math.min(1, p)) * 10000) / 10000;
}

const windowStart = (now: Date) => new Date(now.getTime() - PRIOR_WINDOW_DAYS * 86_400_000);

/** Recomputes a knowledge base's priors; returns how many documents hold one. */
export async function recomputePriors(deps: LearningDeps, organizationId: string, knowledgeBaseId: string): Promise<number> {
  await deps.recorder.flush();
  const now = deps.clock.now();
  const usage = await deps.learning.chunkUsage(organizationId, knowledgeBaseId, windowStart(now), now);
  const priors = usage.map((u) => ({ ...u, prior: chunkPrior(u) }));
  await deps.learning.savePriors(organizationId, knowledgeBaseId, priors, now);
  return new Set(priors.map((p) => p.documentId)).size;
}

export async function setLearningPrior(deps: LearningDeps, actor: Actor, knowledgeBaseId: string, enabled: boolean) {
  const kb = await knowledgeBaseFor(deps.store.repos, actor, knowledgeBaseId, 'edit');
  await deps.learning.setPriorEnabled(kb.organizationId, kb.id, enabled);
  return { enabled };
}

export async function refreshLearningPrior(deps: LearningDeps, actor: Actor, knowledgeBaseId: string) {
  const kb = await knowledgeBaseFor(deps.store.repos, actor, knowledgeBaseId, 'edit');
  return { documents: await recomputePriors(deps, kb.organizationId, kb.id) };
}

export const LEARNING_STAGES = [
  { stage: 'smart_ranking', label: 'Smart ranking (learning prior)', metric: 'retrievals', threshold: 50 },
  { stage: 'learned_weights', label: 'Learned ranking weights', metric: 'ratedAnswers', threshold: 100 },
  { stage: 'custom_reranker', label: 'Custom reranker', metric: 'ratedAnswers', threshold: 1000 },
] as const;

/** `learningReadiness` of the `learning` section. */
export async function learningReadiness(deps: LearningDeps, organizationId: string, knowledgeBaseId: string, since: Date) {
  const [counts, priorEnabled] = await Promise.all([
    deps.learning.counts(organizationId, knowledgeBaseId, since),
    deps.learning.priorEnabled(knowledgeBaseId),
  ]);
  const stages = LEARNING_STAGES.map((s) => {
    const value = counts[s.metric];
    return {
      id: s.stage,
      stage: s.stage,
      label: s.label,
      metric: s.metric,
      threshold: s.threshold,
      current: value,
      unlocked: value >= s.threshold,
      progress: Math.min(1, value / s.threshold),
    };
  });
  const positiveShare = counts.ratedAnswers ? counts.positiveAnswers / counts.ratedAnswers : 0;
  const round = (x: number) => Math.round(x * 100) / 100;
  return {
    learningReadiness: {
      score: Math.round((stages.reduce((s, x) => s + x.progress, 0) / stages.length) * 100),
      breakdown: [
        { key: 'retrievals', label: 'Searches and answers that used this knowledge base', value: counts.retrievals },
        { key: 'ratedAnswers', label: 'Answers rated by users', value: counts.ratedAnswers },
        { key: 'positiveShare', label: 'Share of rated answers rated up', value: round(positiveShare) },
        { key: 'priorChunks', label: 'Chunks with a learned prior', value: counts.priorChunks },
      ],
      stages: stages.map((s) => ({ ...s, progress: round(s.progress) })),
      priorEnabled,
      priorActive: priorEnabled && counts.priorChunks > 0,
    },
  };
}
