import { join } from 'node:path';

import type { Container } from 'inversify';

import type { PlatformConfig } from '../adapters/config/platform-config';
import { ObservedJobQueue } from '../adapters/observability/observed-job-queue';
import { createPlatformMetrics, type PlatformMetrics } from '../adapters/observability/platform-metrics';
import type { PlatformTracing } from '../adapters/opentelemetry/otel-tracing';
import { type Database, databaseOptions, openDatabase } from '../adapters/postgres/database';
import { shareInvalidations } from '../adapters/postgres/identity-cache';
import { KnexStore } from '../adapters/postgres/knex-store';
import { relationalMigrations } from '../adapters/postgres/migrations';
import { migrate } from '../adapters/postgres/migrator';
import { EXTERNAL_TOKEN_VERIFIER, type ExternalTokenVerifier } from '../core/identity/external-token';
import { GOOGLE_RELYING_PARTY } from '../core/identity/google-sign-in';
import { PASSWORD_HASHER, type PasswordHasher } from '../core/identity/password-hasher';
import { OIDC_CLIENT, type OidcClient, type OidcRelyingParty } from '../core/identity/sso/oidc-client';
import { TOKEN_SIGNER, type TokenSigner } from '../core/identity/token-claims';
import { MODEL_LISTING_SOURCE, type ModelListingSource } from '../core/models/model';
import { BLOB_STORE, type BlobStore } from '../core/ports/blob-store';
import { CHAT_MODEL, type ChatModel } from '../core/ports/chat-model';
import { CLOCK, type Clock } from '../core/ports/clock';
import { COMMON_PASSWORD_LIST, type CommonPasswordList } from '../core/ports/common-password-list';
import { DOCUMENT_LOADER, type DocumentLoader } from '../core/ports/document-loader';
import { EMBEDDER, type Embedder } from '../core/ports/embedder';
import { EVENT_BUS, type EventBus } from '../core/ports/event-bus';
import { GRAPH_EXTRACTOR, type GraphExtractor } from '../core/ports/graph-extractor';
import { GRAPH_SEARCH, type GraphSearch } from '../core/ports/graph-search';
import { GRAPH_STORE, type GraphStore } from '../core/ports/graph-store';
import { HEAVY_WORK, type HeavyWork } from '../core/ports/heavy-work';
import { HTML_READER, type HtmlReader } from '../core/ports/html-reader';
import { ID_GENERATOR, type IdGenerator } from '../core/ports/id-generator';
import { IDEMPOTENCY_STORE, type IdempotencyStore } from '../core/ports/idempotency-store';
import { JOB_QUEUE, type JobQueue } from '../core/ports/job-queue';
import {
  IMAGE_DESCRIBER,
  type ImageDescriber,
  SPEECH_SYNTHESIZER,
  type SpeechSynthesizer,
  TRANSCRIBER,
  type Transcriber,
} from '../core/ports/media-understanding';
import { NONCE_REGISTRY, type NonceRegistry } from '../core/ports/nonce-registry';
import { OUTBOUND_FETCHER, type OutboundFetcher } from '../core/ports/outbound-fetcher';
import { RATE_LIMIT_STORE, type RateLimitStore } from '../core/ports/rate-limit-store';
import { RERANKER, type Reranker } from '../core/ports/reranker';
import { STORE, type Store } from '../core/ports/store';
import { TICK_LEADERSHIP, type TickLeadership } from '../core/ports/tick-leadership';
import { VECTOR_INDEX, type VectorIndex } from '../core/ports/vector-index';
import { createPluginRegistries, type PluginRegistries } from '../plugins';
import { type Binding, createAdaptersContainer } from './adapters-container';
import { type AnalyticsAdapters, createAnalyticsAdapters } from './analytics-adapters';
import { pluginOptions } from './configuration';
import type { Logger } from './logger';
import { EXTRA_CHAT_MODELS } from './ports/chat.port';
import { EMBEDDINGS, type Embeddings } from './ports/model-capabilities.port';

export interface KnowledgeAdapters {
  vectorIndex: VectorIndex;
  embedder: Embedder;
  /** Default size of new knowledge bases' embeddings for this embedder. */
  embeddingDimensions: number;
  reranker: Reranker | null;
  transcriber: Transcriber | null;
  imageDescriber: ImageDescriber | null;
  documentLoader: DocumentLoader;
  /** The pool of bounded worker threads for parsing, chunking, summaries and offline embeddings. */
  heavyWork: HeavyWork;
  /** The SSRF-guarded fetcher: the only way to the network for sources and plugins. */
  outbound: OutboundFetcher;
  html: HtmlReader;
  /** Entity search over the knowledge graphs (chat's graph step, search's graph discovery). */
  graphSearch: GraphSearch;
  /** The knowledge graph (GRAPH_STORE). */
  graphStore: GraphStore;
  /** Entities and relationships of documents (the ingestion pipeline's graph step). */
  graphExtractor: GraphExtractor;
}

export interface ChatAdapters {
  /** Serves every model id the platform can call (a ChatModelRouter over CHAT_PROVIDERS). */
  chatModel: ChatModel;
  speech: SpeechSynthesizer | null;
}

/** Everything that touches the world, chosen per port by configuration. */
export interface Infrastructure {
  config: PlatformConfig;
  log: Logger;
  clock: Clock;
  ids: IdGenerator;
  db: Database;
  store: Store;
  tokens: TokenSigner;
  passwords: PasswordHasher;
  rateLimits: RateLimitStore;
  /** One-time gateway signature nonces (Redis when configured, so every api replica refuses a replay). */
  nonces: NonceRegistry;
  /** Idempotency-Key claims and kept answers of the POSTs of /api and /v1 (the relational database). */
  idempotency: IdempotencyStore;
  /** Passwords too common to accept (the password policy). */
  commonPasswords: CommonPasswordList;
  /** The configured queue wrapped with request ids, job log lines, outcome metrics and job spans. */
  queue: JobQueue;
  bus: EventBus;
  /** The platform's own Prometheus series (served with the api's /metrics). */
  metrics: PlatformMetrics;
  /** OpenTelemetry tracing when OTEL_EXPORTER_OTLP_ENDPOINT is set; null (no spans, no cost) otherwise. */
  tracing: PlatformTracing | null;
  blobs: BlobStore;
  /** The Google preset of OpenID Connect sign-in (GOOGLE_* settings), null when not configured. */
  google: OidcRelyingParty | null;
  /** OpenID Connect relying party for the providers administrators configure and for Google. */
  oidc: OidcClient;
  /** Bearer tokens of the configured external issuer (EXTERNAL_JWT_*), null when off. */
  externalTokens: ExternalTokenVerifier | null;
  modelListing: ModelListingSource | null;
  knowledge: KnowledgeAdapters;
  chat: ChatAdapters;
  /** Analytics on the relational store: queries, rollup, learning priors and the buffered retrieval recorder. */
  analytics: AnalyticsAdapters;
  /** Runs the worker role's periodic ticks on one worker at a time (advisory locks on a Postgres server). */
  leadership: TickLeadership;
  /** The plugins of every kind (folders and PLUGINS packages), their secrets read from configuration. */
  plugins: PluginRegistries;
  /** Every port's token bound to its adapter (the parent of the roles' container). */
  adapters: Container;
  close(): Promise<void>;
}

export interface InfrastructureOverrides {
  /** Tests: in-memory PGlite. */
  memoryDatabase?: boolean;
  /** Tests: a database another platform opened (two replicas on one store); it stays open when this one closes. */
  database?: Database;
  /** Tests: cheaper password hashing. */
  passwords?: PasswordHasher;
  /** Benchmarks: a registry that accepts repeated signatures, so pre-signed headers can be replayed as a baseline. */
  nonces?: NonceRegistry;
  /** Tests: an OpenID Connect client with other cache timings. */
  oidc?: OidcClient;
  /** Tests: an external-issuer verifier with other JWKS timings. */
  externalTokens?: ExternalTokenVerifier | null;
  /** Tests: fake model providers or a capability (transcriber, image describer) to configure. */
  knowledge?: {
    embedder?: Embeddings;
    reranker?: Reranker | null;
    transcriber?: Transcriber | null;
    imageDescriber?: ImageDescriber | null;
    vectorIndex?: VectorIndex;
  };
  /** Tests and benchmarks: chat models consulted before the configured providers, a fake speech synthesizer. */
  chat?: { chatModels?: ChatModel[]; speech?: SpeechSynthesizer | null };
  /** Any other token bound to a fixed value instead of its configured adapter. */
  bindings?: Binding[];
  /** Tests: where the `start` role's log lines go instead of stderr (a pino destination: anything with write()). */
  logDestination?: { write(line: string): void };
}

function replacementsOf(o: InfrastructureOverrides): Binding[] {
  const out: Binding[] = [];
  const add = (token: symbol, value: unknown) => value !== undefined && out.push([token, value]);
  add(PASSWORD_HASHER, o.passwords);
  add(NONCE_REGISTRY, o.nonces);
  add(OIDC_CLIENT, o.oidc);
  add(EXTERNAL_TOKEN_VERIFIER, o.externalTokens);
  add(EMBEDDINGS, o.knowledge?.embedder);
  add(RERANKER, o.knowledge?.reranker);
  add(TRANSCRIBER, o.knowledge?.transcriber);
  add(IMAGE_DESCRIBER, o.knowledge?.imageDescriber);
  add(VECTOR_INDEX, o.knowledge?.vectorIndex);
  add(EXTRA_CHAT_MODELS, o.chat?.chatModels);
  add(SPEECH_SYNTHESIZER, o.chat?.speech);
  return [...out, ...(o.bindings ?? [])];
}

const secretOf = (config: PlatformConfig, name: string) => {
  const value = config.settings[name];
  return typeof value === 'string' ? value : undefined;
};

interface Closable {
  close(): Promise<void>;
}

export async function buildInfrastructure(
  config: PlatformConfig,
  log: Logger,
  overrides: InfrastructureOverrides = {},
): Promise<Infrastructure> {
  // Plugins first: one that breaks its contract fails boot before anything is opened.
  const plugins = createPluginRegistries({ ...pluginOptions(config.settings), secrets: (name) => secretOf(config, name) });
  const db = overrides.database ?? (await openDatabase({ ...databaseOptions(config), memory: overrides.memoryDatabase }));
  const closers: Closable[] = overrides.database ? [] : [db];
  const closeAll = async () => {
    for (const c of closers) await c.close().catch((e) => log('warn', 'error while closing', e));
  };
  try {
    const c = createAdaptersContainer(config, { dataDir: config.dataDir, log, db }, replacementsOf(overrides));
    const get = async <T>(token: symbol, closable = false): Promise<T> => {
      const value = await c.getAsync<T>(token);
      if (closable) closers.unshift(value as Closable);
      return value;
    };
    // The vector index first: a Postgres without pgvector fails boot before anything else is touched.
    const vectorIndex = await get<VectorIndex>(VECTOR_INDEX, true);
    await migrate(db.knex, [relationalMigrations]);
    const rateLimits = await get<RateLimitStore>(RATE_LIMIT_STORE, true);
    const nonces = await get<NonceRegistry>(NONCE_REGISTRY, true);
    // Loaded only when configured (the SDK stays out of processes that do not trace); flushed after the rest closed.
    const tracing = config.tracing ? (await import('../adapters/opentelemetry/otel-tracing')).createOtelTracing(config.tracing) : null;
    if (tracing) closers.push({ close: () => tracing.shutdown() });
    const configuredQueue = await get<JobQueue>(JOB_QUEUE, true);
    const metrics = createPlatformMetrics(() => queue.depths());
    const queue = new ObservedJobQueue(configuredQueue, metrics, log, tracing);
    const bus = await get<EventBus>(EVENT_BUS, true);
    const store = await get<Store>(STORE);
    if (store instanceof KnexStore && store.identityCache) {
      await shareInvalidations(store.identityCache, bus, (e) => log('warn', 'identity cache invalidation not published', e));
    }
    const { dimensions } = await get<Embeddings>(EMBEDDINGS);
    const heavyWork = await get<HeavyWork>(HEAVY_WORK, true);
    const analytics = createAnalyticsAdapters(db.knex, log, {
      journalDir: overrides.memoryDatabase && !config.databaseUrl ? undefined : join(config.dataDir, 'analytics-journal'),
    });
    closers.unshift(analytics.recorder); // flushed before the database closes
    // Events a crashed process had buffered; not worth failing boot for (the segments stay for the next one).
    await analytics.recorder
      .replayJournal()
      .then((n) => n && log('info', `analytics: ${n} journaled retrieval events replayed`))
      .catch((e) => log('warn', 'analytics: journal replay failed; kept for the next boot', e));
    return {
      config,
      log,
      clock: await get<Clock>(CLOCK),
      ids: await get<IdGenerator>(ID_GENERATOR),
      db,
      store,
      tokens: await get<TokenSigner>(TOKEN_SIGNER),
      passwords: await get<PasswordHasher>(PASSWORD_HASHER),
      rateLimits,
      nonces,
      idempotency: await get<IdempotencyStore>(IDEMPOTENCY_STORE),
      commonPasswords: await get<CommonPasswordList>(COMMON_PASSWORD_LIST),
      queue,
      bus,
      metrics,
      tracing,
      blobs: await get<BlobStore>(BLOB_STORE),
      google: await get<OidcRelyingParty | null>(GOOGLE_RELYING_PARTY),
      oidc: await get<OidcClient>(OIDC_CLIENT),
      externalTokens: await get<ExternalTokenVerifier | null>(EXTERNAL_TOKEN_VERIFIER),
      modelListing: await get<ModelListingSource | null>(MODEL_LISTING_SOURCE),
      knowledge: {
        vectorIndex,
        embedder: await get<Embedder>(EMBEDDER),
        embeddingDimensions: dimensions,
        reranker: await get<Reranker | null>(RERANKER),
        transcriber: await get<Transcriber | null>(TRANSCRIBER),
        imageDescriber: await get<ImageDescriber | null>(IMAGE_DESCRIBER),
        documentLoader: await get<DocumentLoader>(DOCUMENT_LOADER),
        heavyWork,
        outbound: await get<OutboundFetcher>(OUTBOUND_FETCHER),
        html: await get<HtmlReader>(HTML_READER),
        graphSearch: await get<GraphSearch>(GRAPH_SEARCH),
        graphStore: await get<GraphStore>(GRAPH_STORE, true),
        graphExtractor: await get<GraphExtractor>(GRAPH_EXTRACTOR),
      },
      chat: {
        chatModel: await chatModelOf(await get<ChatModel>(CHAT_MODEL), tracing),
        speech: await get<SpeechSynthesizer | null>(SPEECH_SYNTHESIZER),
      },
      analytics,
      leadership: await get<TickLeadership>(TICK_LEADERSHIP),
      plugins,
      adapters: c,
      close: closeAll,
    };
  } catch (e) {
    await closeAll();
    throw e;
  }
}

/** The model router, with a `model.call` span per call when tracing. */
async function chatModelOf(model: ChatModel, tracing: PlatformTracing | null): Promise<ChatModel> {
  if (!tracing) return model;
  return (await import('../adapters/opentelemetry/traced-chat-model')).tracedChatModel(model);
}
