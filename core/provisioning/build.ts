/**
 * A provisioning build (spec 2.12, 3.3): the durable state machine behind `POST /v1/agents:from-url`. Its
 * public state (status, progress, labels, error) lives in the job row of the job contract (kind
 * `provisioning_build`); this record keeps what the worker needs to resume after a restart: the phase it is
 * in, what earlier phases produced, the ids of what it created, and a lease so two workers never run it at once.
 */
import type { SourceItemContent } from '../sources/source-plugin';

export const BUILD_JOB_KIND = 'provisioning_build';
export const BUILD_QUEUE = 'provisioning.build';

export type BuildPhase = 'queued' | 'detecting' | 'scraping' | 'analyzing' | 'provisioning' | 'indexing';
export type ProvisioningStatus = BuildPhase | 'ready' | 'failed';
export type BuildMode = 'preview' | 'full';

/** Phases in order, with the progress each starts and ends at (phase-weighted, monotonic) and its display copy. */
export const PHASES: readonly { phase: Exclude<BuildPhase, 'queued'>; from: number; to: number; label: string }[] = [
  { phase: 'detecting', from: 2, to: 10, label: 'Finding the channel' },
  { phase: 'scraping', from: 10, to: 40, label: 'Reading recent content' },
  { phase: 'analyzing', from: 40, to: 55, label: 'Writing the agent' },
  { phase: 'provisioning', from: 55, to: 65, label: 'Creating the agent' },
  { phase: 'indexing', from: 65, to: 99, label: 'Indexing content' },
];
export const QUEUED_LABEL = 'Waiting to start';
export const READY_LABEL = 'Your agent is ready';
export const FAILED_LABEL = 'The build failed';

/** Build error codes of spec 7 and whether a retry may help. */
export const BUILD_ERROR_RETRYABLE = {
  unsupported_url: false,
  private_or_empty: false,
  scrape_failed: true,
  analysis_failed: true,
  indexing_failed: true,
  turnstile_failed: false,
  rate_limited: true,
  plan_limit: false,
  insufficient_credits: false,
  internal: true,
} as const;
export type BuildErrorCode = keyof typeof BUILD_ERROR_RETRYABLE;

/** A failure the build reports as its `error` (thrown by phases, caught by the runner). */
export class BuildFailure extends Error {
  constructor(
    readonly code: BuildErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'BuildFailure';
  }
}

export interface BuildAnalysis {
  name: string;
  description: string;
  systemPrompt: string;
  starterQuestions: string[];
}

/** What phases produced so far (jsonb): each phase reads its predecessors' output. */
export interface BuildState {
  channelTitle?: string;
  items?: SourceItemContent[];
  warning?: string;
  analysis?: BuildAnalysis;
  /** Documents queued by indexing (resume does not queue them twice). */
  documentIds?: string[];
}

export interface BuildRecord {
  id: string;
  organizationId: string;
  apiKeyId: string;
  /** The user behind the API key: created resources are attributed to them. */
  createdBy: string;
  /** Normalised handle (`youtube:https://www.youtube.com/@name`): one active build and one fresh agent per handle. */
  handle: string;
  /** Source plugin type reading the URL (`youtube`, `instagram`, `shopify`, `website`). */
  sourceType: string;
  /** Canonical URL. */
  url: string;
  mode: BuildMode;
  intent: string | null;
  model: string | null;
  phase: BuildPhase;
  status: 'active' | 'ready' | 'failed';
  state: BuildState;
  agentId: string | null;
  knowledgeBaseId: string | null;
  agentSlug: string | null;
  /** Runs of the build a worker started (a build that keeps crashing its workers fails). */
  runs: number;
  leaseUntil: string | null;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
}

export type BuildPatch = Partial<
  Pick<BuildRecord, 'phase' | 'status' | 'state' | 'agentId' | 'knowledgeBaseId' | 'agentSlug' | 'leaseUntil' | 'finishedAt'>
>;

export interface IdempotencyRecord {
  organizationId: string;
  key: string;
  requestHash: string;
  buildId: string;
}

export interface BuildRepository {
  /**
   * Inserts an active build unless the organization has one for the same handle (then returns that one,
   * `created` false): concurrent requests for one handle follow one build.
   */
  insertActive(build: BuildRecord): Promise<{ build: BuildRecord; created: boolean }>;
  find(id: string): Promise<BuildRecord | null>;
  /** The newest ready build of the handle finished after `since` (handle dedup). */
  latestReady(organizationId: string, handle: string, since: string): Promise<BuildRecord | null>;
  /** Takes the lease when free or expired, counting a run; null when another worker holds it or the build ended. */
  claim(id: string, now: string, until: string): Promise<BuildRecord | null>;
  update(id: string, patch: BuildPatch, at: string): Promise<BuildRecord | null>;
  /** Active builds whose lease expired (or never taken) and that were last touched before `before`. */
  listStale(before: string, limit: number): Promise<BuildRecord[]>;
  /** Binds an Idempotency-Key to a build unless bound already; returns the binding that holds. */
  bindIdempotencyKey(record: IdempotencyRecord, at: string): Promise<{ record: IdempotencyRecord; created: boolean }>;
  /** Moves a key binding to another build (the request joined an existing build for its handle). */
  rebindIdempotencyKey(organizationId: string, key: string, buildId: string): Promise<void>;
}

export interface BuildJobPayload {
  buildId: string;
}

/** Progress of `done` units out of `total` inside a phase. */
export function phaseProgress(phase: BuildPhase, done: number, total: number): number {
  const p = PHASES.find((x) => x.phase === phase);
  if (!p) return 0;
  const share = total > 0 ? Math.min(1, Math.max(0, done / total)) : 0;
  return Math.floor(p.from + (p.to - p.from) * share);
}
