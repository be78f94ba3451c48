/**
 * The knowledge use cases over real adapters without HTTP: in-memory PGlite (relational + pgvector), local
 * folder blobs, the local embedder and reranker, the multi-format loader. Used by the pipeline tests and
 * the retrieval benchmarks.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { LocalFolderBlobStore } from '../../adapters/blob/local-folder.blob-store';
import { MultiFormatDocumentLoader } from '../../adapters/documents/multi-format.document-loader';
import { hashEmbed, LocalEmbedder } from '../../adapters/local-ai/local-hash.embedder';
import { InProcessJobQueue } from '../../adapters/memory/in-process.job-queue';
import { PgvectorVectorIndex } from '../../adapters/pgvector/pgvector.vector-index';
import { type Database, openDatabase } from '../../adapters/postgres/database';
import { KnexStore } from '../../adapters/postgres/knex-store';
import { relationalMigrations } from '../../adapters/postgres/migrations';
import { migrate } from '../../adapters/postgres/migrator';
import type { Actor } from '../../core/identity/actor';
import type { KnowledgeBase } from '../../core/knowledge/knowledge-base';
import type { KnowledgeDeps } from '../../core/knowledge/knowledge-deps';
import { tablePricing } from '../../core/knowledge/pricing';
import type { Embedder } from '../../core/ports/embedder';
import type { ImageDescriber, Transcriber } from '../../core/ports/media-understanding';
import type { Reranker } from '../../core/ports/reranker';

/** A "paid" embedder (priced like text-embedding-3-large, 100 tokens a text) that computes local vectors. */
export const paidEmbedder: Embedder = {
  id: 'paid',
  model: 'openai/text-embedding-3-large',
  embed: async (texts, o) => ({
    vectors: texts.map((t) => hashEmbed(t, o.dimensions)),
    model: 'openai/text-embedding-3-large',
    usage: { tokens: texts.length * 100 },
  }),
};

export interface HarnessOptions {
  embedder?: Embedder;
  dimensions?: number;
  reranker?: Reranker | null;
  transcriber?: Transcriber;
  imageDescriber?: ImageDescriber;
  /** Reuse a database (several harnesses over one PGlite). */
  database?: Database;
}

export interface KnowledgeHarness {
  db: Database;
  deps: KnowledgeDeps;
  queue: InProcessJobQueue;
  logs: { level: string; message: string }[];
  newOrganization(label?: string): Promise<{ organizationId: string; owner: Actor }>;
  newKnowledgeBase(organizationId: string, patch?: Partial<KnowledgeBase>): Promise<KnowledgeBase>;
  close(): Promise<void>;
}

export async function createKnowledgeHarness(options: HarnessOptions = {}): Promise<KnowledgeHarness> {
  const db = options.database ?? (await openDatabase({ memory: true }));
  await migrate(db.knex, [relationalMigrations]);
  // The embedded store's defaults: large documents staged (PGVECTOR_DEFER_HNSW_ABOVE=256) and a new document
  // written 16 rows a transaction (PGVECTOR_ROWS_PER_TRANSACTION), so the pipeline suites cover both paths.
  const vectorIndex = await PgvectorVectorIndex.open({ knex: db.knex, deferIndexAbove: 256, rowsPerTransaction: 16 });
  const store = new KnexStore(db.knex);
  const dir = mkdtempSync(join(tmpdir(), 'kb-harness-'));
  const queue = new InProcessJobQueue({ logger: { warn: () => undefined } });
  const clock = { now: () => new Date() };
  const ids = { uuid: () => randomUUID(), secret: () => randomUUID().replace(/-/g, '') };
  const embedder = options.embedder ?? new LocalEmbedder();
  const logs: { level: string; message: string }[] = [];
  const deps: KnowledgeDeps = {
    store,
    clock,
    ids,
    blobs: new LocalFolderBlobStore({ root: dir }),
    queue,
    vectorIndex,
    embedder,
    reranker: options.reranker ?? null,
    loader: new MultiFormatDocumentLoader({ transcriber: options.transcriber, imageDescriber: options.imageDescriber }),
    imageDescriber: options.imageDescriber ?? null,
    billing: { store, clock, ids, marginMultiplier: 1.5 },
    pricing: tablePricing(new Map([['openai/text-embedding-3-large', 0.13 / 1e6]])),
    settings: {
      uploadMaxBytes: 5_000_000,
      defaultEmbedding: { model: embedder.model, dimensions: options.dimensions ?? 256 },
      defaultChunking: { size: 1000, overlap: 200 },
      embedBatchSize: 64,
      ingestMaxAttempts: 3,
    },
    log: (level, message) => logs.push({ level, message }),
  };
  const now = () => new Date().toISOString();
  return {
    db,
    deps,
    queue,
    logs,
    async newOrganization(label = 'org') {
      const organizationId = randomUUID();
      const userId = randomUUID();
      const email = `${label}-${userId.slice(0, 8)}@example.com`;
      await store.repos.organizations.create({
        id: organizationId,
        name: label,
        slug: `${label}-${organizationId.slice(0, 8)}`,
        plan: { seats: 5, agents: 25, knowledgeBases: 1000 },
        createdAt: now(),
      });
      await store.repos.wallets.create({ organizationId, balanceUsd: 5, updatedAt: now() });
      await db
        .knex('users')
        .insert({ id: userId, email, display_name: label, account_type: 'password', created_at: now(), updated_at: now() });
      await store.repos.memberships.add({ organizationId, userId, role: 'owner', createdAt: now() });
      return { organizationId, owner: { userId, email, displayName: label, platformRole: 'user', organizationId, orgRole: 'owner' } };
    },
    async newKnowledgeBase(organizationId, patch = {}) {
      const kb: KnowledgeBase = {
        id: randomUUID(),
        organizationId,
        name: 'KB',
        description: '',
        visibility: 'private',
        settings: { embedding: deps.settings.defaultEmbedding, chunking: deps.settings.defaultChunking },
        createdBy: null,
        createdAt: now(),
        updatedAt: now(),
        ...patch,
      };
      await store.repos.knowledgeBases.create(kb);
      return kb;
    },
    async close() {
      await queue.close();
      if (!options.database) await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
