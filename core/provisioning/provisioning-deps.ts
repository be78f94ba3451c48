import type { AgentDeps } from '../agents/agent-deps';
import type { JobReporter } from '../jobs/job-reporter';
import type { CatalogueDeps } from '../models/catalogue';
import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { JobQueue } from '../ports/job-queue';
import type { Store } from '../ports/store';
import type { SourcesDeps } from '../sources/sources-deps';
import type { MediaSettings, MediaTranscription } from './media-transcripts';
import { DEFAULT_MEDIA_SETTINGS } from './media-transcripts';
import type { AnalysisModels } from './model-analysis';
import type { TurnstileSettings } from './turnstile';

export interface ProvisioningSettings {
  /** A ready build of the same handle younger than this answers a new request at once (handle dedup). */
  freshForMs: number;
  /** A worker's hold on a build; renewed at every phase. A build whose lease expired is resumed by another worker. */
  leaseMs: number;
  /** Bound of one phase; indexing past it ends ready (spec 3.3), other phases fail. */
  phaseTimeoutMs: number;
  /** How often indexing looks at its documents (and sends a progress tick). */
  indexPollMs: number;
  /** Items read in preview (spec 8: about the 8 most recent) and in full mode. */
  previewItems: number;
  fullItems: number;
  /** Content shorter than this (characters over all items) reaches ready with a thin-content warning. */
  thinContentChars: number;
  /** Worker runs of one build before it fails (a build that keeps killing its workers). */
  maxRuns: number;
  /** Bot-check verification; null when no secret is configured (no token needed). */
  turnstile: TurnstileSettings | null;
  /** Media of caption-less items: fetch bounds and transcriptions per build. */
  media: MediaSettings;
}

export const DEFAULT_PROVISIONING_SETTINGS: ProvisioningSettings = {
  freshForMs: 24 * 3600_000,
  leaseMs: 60_000,
  phaseTimeoutMs: 90_000,
  indexPollMs: 250,
  previewItems: 8,
  fullItems: 50,
  thinContentChars: 600,
  maxRuns: 3,
  turnstile: null,
  media: DEFAULT_MEDIA_SETTINGS,
};

export type ProvisioningLog = (level: 'debug' | 'info' | 'warn' | 'error', message: string, extra?: unknown) => void;

export interface ProvisioningDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  queue: JobQueue;
  jobs: JobReporter;
  sources: SourcesDeps;
  agents: AgentDeps;
  catalogue: CatalogueDeps;
  settings: ProvisioningSettings;
  log: ProvisioningLog;
  /** Model-backed analysis; absent: always the offline analysis. */
  analysis?: AnalysisModels;
  /** Transcription of media without captions; absent (no transcription model): none. */
  transcription?: MediaTranscription;
}
