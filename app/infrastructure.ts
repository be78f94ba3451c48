import { join } from 'node:path';

import type { PlatformConfig } from '../adapters/config/platform-config';
import { Hs256TokenSigner } from '../adapters/crypto/hs256.token-signer';
import { ScryptPasswordHasher } from '../adapters/crypto/scrypt.password-hasher';
import { GoogleIdentityProvider } from '../adapters/google/google.identity-provider';
import { type Database, openDatabase } from '../adapters/postgres/database';
import { KnexStore } from '../adapters/postgres/knex-store';
import { relationalMigrations } from '../adapters/postgres/migrations';
import { migrate } from '../adapters/postgres/migrator';
import { CryptoIdGenerator } from '../adapters/system/crypto.id-generator';
import { SystemClock } from '../adapters/system/system.clock';
import type { OAuthIdentityProvider } from '../core/identity/google-sign-in';
import type { PasswordHasher } from '../core/identity/password-hasher';
import type { TokenSigner } from '../core/identity/token-claims';
import type { BlobStore } from '../core/ports/blob-store';
import type { Clock } from '../core/ports/clock';
import type { EventBus } from '../core/ports/event-bus';
import type { IdGenerator } from '../core/ports/id-generator';
import type { JobQueue } from '../core/ports/job-queue';
import type { NonceRegistry } from '../core/ports/nonce-registry';
import type { RateLimitStore } from '../core/ports/rate-limit-store';
import type { Store } from '../core/ports/store';
import { buildChatAdapters, type ChatAdapterOverrides, type ChatAdapters } from './chat-infrastructure';
import { buildKnowledgeAdapters, type KnowledgeAdapterOverrides, type KnowledgeAdapters } from './knowledge-infrastructure';
import type { Logger } from './logger';

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
  queue: JobQueue;
  bus: EventBus;
  blobs: BlobStore;
  google: OAuthIdentityProvider | null;
  /** Vector index, embedder, reranker, media understanding, document loader, outbound fetcher. */
  knowledge: KnowledgeAdapters;
  /** Chat model router (by model id prefix) and the optional speech synthesizer. */
  chat: ChatAdapters;
  close(): Promise<void>;
}

export interface InfrastructureOverrides {
  /** Tests: in-memory PGlite, cheaper password hashing. */
  memoryDatabase?: boolean;
  passwords?: PasswordHasher;
  /** Benchmarks: a registry that accepts repeated signatures, so pre-signed headers can be replayed as a baseline. */
  nonces?: NonceRegistry;
  google?: OAuthIdentityProvider | null;
  /** Tests: fake model providers or a capability (transcriber, image describer) to configure. */
  knowledge?: KnowledgeAdapterOverrides;
  /** Tests and benchmarks: extra or fake chat models, a fake speech synthesizer. */
  chat?: ChatAdapterOverrides;
}

// Optional SDKs are loaded only when their adapter is selected.
async function rateLimitStoreFor(config: PlatformConfig): Promise<RateLimitStore> {
  if (config.redisUrl) {
    const { RedisRateLimitStore } = await import('../adapters/redis/redis.rate-limit-store');
    const store = new RedisRateLimitStore({ url: config.redisUrl, prefix: 'agent-platform:rl:' });
    // Until Redis answers, each process limits on its own (insurance limiter): never open.
    await store.ready();
    return store;
  }
  const { InProcessRateLimitStore } = await import('../adapters/memory/in-process.rate-limit-store');
  return new InProcessRateLimitStore();
}

async function nonceRegistryFor(config: PlatformConfig, log: Logger): Promise<NonceRegistry> {
  if (config.redisUrl) {
    const { RedisNonceRegistry } = await import('../adapters/redis/redis.nonce-registry');
    return new RedisNonceRegistry({
      url: config.redisUrl,
      prefix: 'agent-platform:nonce:',
      onFallback: (e) => log('warn', 'nonce registry: Redis unreachable, checking replays in this process only', e),
    });
  }
  const { InProcessNonceRegistry } = await import('../adapters/memory/in-process.nonce-registry');
  return new InProcessNonceRegistry();
}

async function messagingFor(config: PlatformConfig, log: Logger): Promise<{ queue: JobQueue; bus: EventBus }> {
  if (config.rabbitmq) {
    const { RabbitMqJobQueue } = await import('../adapters/rabbitmq/rabbitmq.job-queue');
    const { RabbitMqEventBus } = await import('../adapters/rabbitmq/rabbitmq.event-bus');
    const queue = new RabbitMqJobQueue({ url: config.rabbitmq.url, prefix: config.rabbitmq.prefix });
    const bus = new RabbitMqEventBus({ url: config.rabbitmq.url, prefix: config.rabbitmq.prefix });
    return { queue, bus };
  }
  const { InProcessJobQueue } = await import('../adapters/memory/in-process.job-queue');
  const { InProcessEventBus } = await import('../adapters/memory/in-process.event-bus');
  const logger = {
    error: (message: string, extra?: unknown) => log('error', message, extra),
    warn: (message: string, extra?: unknown) => log('warn', message, extra),
  };
  return { queue: new InProcessJobQueue({ logger }), bus: new InProcessEventBus({ logger }) };
}

async function blobStoreFor(config: PlatformConfig): Promise<BlobStore> {
  if (config.blob.driver === 's3') {
    const { S3BlobStore } = await import('../adapters/s3/s3.blob-store');
    const { driver: _driver, ...options } = config.blob;
    return new S3BlobStore(options);
  }
  const { LocalFolderBlobStore } = await import('../adapters/blob/local-folder.blob-store');
  return new LocalFolderBlobStore({ root: join(config.dataDir, 'blobs') });
}

export async function buildInfrastructure(
  config: PlatformConfig,
  log: Logger,
  overrides: InfrastructureOverrides = {},
): Promise<Infrastructure> {
  const clock = new SystemClock();
  const ids = new CryptoIdGenerator();
  const db = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir, memory: overrides.memoryDatabase });
  const closers: (() => Promise<void>)[] = [() => db.close()];
  try {
    const knowledge = await buildKnowledgeAdapters(config, db, overrides.knowledge);
    closers.unshift(() => knowledge.vectorIndex.close());
    await migrate(db.knex, [relationalMigrations]);
    const rateLimits = await rateLimitStoreFor(config);
    closers.unshift(() => rateLimits.close());
    const nonces = overrides.nonces ?? (await nonceRegistryFor(config, log));
    closers.unshift(() => nonces.close());
    const { queue, bus } = await messagingFor(config, log);
    closers.unshift(
      () => queue.close(),
      () => bus.close(),
    );
    const blobs = await blobStoreFor(config);
    const chat = await buildChatAdapters(config, overrides.chat);
    const google = overrides.google !== undefined ? overrides.google : config.google ? new GoogleIdentityProvider(config.google) : null;
    return {
      config,
      log,
      clock,
      ids,
      db,
      store: new KnexStore(db.knex),
      tokens: new Hs256TokenSigner({ secret: config.secrets.jwt, clock }),
      passwords: overrides.passwords ?? new ScryptPasswordHasher(),
      rateLimits,
      nonces,
      queue,
      bus,
      blobs,
      google,
      knowledge,
      chat,
      close: async () => {
        for (const close of closers) await close().catch((e) => log('warn', 'error while closing', e));
      },
    };
  } catch (e) {
    await db.close().catch(() => undefined);
    throw e;
  }
}
