import type { KnowledgeDeps } from '../knowledge/knowledge-deps';
import type { HtmlReader } from '../ports/html-reader';
import type { OutboundFetcher } from '../ports/outbound-fetcher';
import type { SourceContext, SourceLog } from './source-plugin';
import type { SourceRegistry } from './source-registry';

/** Queue of source syncs (payload: SyncJobPayload). */
export const SYNC_QUEUE = 'sources.sync';

export interface SyncJobPayload {
  organizationId: string;
  sourceId: string;
  reason: 'added' | 'manual' | 'scheduled' | 'setup';
}

export interface SourcesSettings {
  /** Bound of one upstream request during a sync. */
  requestTimeoutMs: number;
  maxResponseBytes: number;
  /** Light scrape (spec 8): per-URL time bound, text cut, URL count. */
  lightScrape: { timeoutMs: number; maxChars: number; maxUrls: number; previewItems: number };
  /** Sources enqueued per scheduler tick. */
  schedulerBatch: number;
}

export const DEFAULT_SOURCES_SETTINGS: SourcesSettings = {
  requestTimeoutMs: 20_000,
  maxResponseBytes: 10 * 1024 * 1024,
  lightScrape: { timeoutMs: 10_000, maxChars: 2000, maxUrls: 10, previewItems: 8 },
  schedulerBatch: 100,
};

/** The sources use cases: the knowledge area's dependencies (documents, queue, store) plus plugins and the network. */
export interface SourcesDeps {
  knowledge: KnowledgeDeps;
  registry: SourceRegistry;
  fetcher: OutboundFetcher;
  html: HtmlReader;
  settings: SourcesSettings;
  log: SourceLog;
}

/** The context one plugin works in: the guarded fetcher, the HTML reader, its own secrets, a log without them. */
export function sourceContext(deps: SourcesDeps, type: string, requestTimeoutMs = deps.settings.requestTimeoutMs): SourceContext {
  const redact = deps.registry.redactor(type);
  return {
    fetcher: deps.fetcher,
    html: deps.html,
    secrets: deps.registry.secrets(type),
    requestTimeoutMs,
    maxResponseBytes: deps.settings.maxResponseBytes,
    log: (level, message, extra) => deps.log(level, redact.text(message), redact.value(extra)),
  };
}
