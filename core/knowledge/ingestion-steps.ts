/**
 * The ingestion pipeline as a list of named steps over one context (spec 3.1: load, chunk, embed, store,
 * optional graph extraction, optional summary). A step may declare a compensation, run in reverse order
 * when a later step fails, and may be optional: its failure is recorded on the document's metadata and the
 * document still completes. New steps (graph extraction, analytics counters) slot into the list.
 */
import { ensureCredits } from '../billing/billing';
import type { LoadedDocument } from '../ports/document-loader';
import { type WorkAttribution, workTenant } from '../ports/heavy-work';
import type { EmbeddingType, VectorChunk } from '../ports/vector-index';
import { DomainError } from '../shared/errors';
import { chunkId, contentHash } from './chunk-id';
import { chunkText, type TextChunk } from './chunker';
import type { KnowledgeDocument } from './document';
import type { KnowledgeBase } from './knowledge-base';
import type { KnowledgeDeps } from './knowledge-deps';
import { isFreeModel } from './pricing';
import { type DocumentDigest, summarize } from './summarize';

export const DEFAULT_CHUNK_IMPORTANCE = 0.5;

export interface IngestionContext {
  deps: KnowledgeDeps;
  document: KnowledgeDocument;
  knowledgeBase: KnowledgeBase;
  loaded: LoadedDocument | null;
  chunks: TextChunk[];
  vectors: number[][];
  embeddingType: EmbeddingType;
  digest: DocumentDigest | null;
  usage: { embeddingTokens: number };
  /** Free-form numbers steps report (chunks written, characters...), kept on the document's metadata. */
  counters: Record<string, number>;
  /** Failures of optional steps, by step id. */
  warnings: Record<string, string>;
  /** Fields steps add to the document's metadata (the graph step's `graphStatus`). */
  metadata: Record<string, unknown>;
  /** True once the document row is gone (deleted while processing) or taken over by a newer job. */
  isStale(): Promise<boolean>;
  /** What steps' `prepare` started, by step id, for their `run` to take. */
  prepared: Map<string, Promise<unknown>>;
}

export interface IngestionStep {
  id: string;
  optional?: boolean;
  /**
   * Work of this step that needs only what the step named `after` produced: started as soon as that step
   * finishes, so it runs beside the steps in between (in another thread: the heavy-work pool or the database's),
   * and handed to `run` through `ctx.prepared`. Returns null when there is nothing to start early.
   */
  prepare?: { after: string; start(ctx: IngestionContext): Promise<unknown> | null };
  run(ctx: IngestionContext): Promise<void>;
  compensate?(ctx: IngestionContext): Promise<void>;
}

/** Starts the `prepare` work of every step that waits for `finished`; a failure surfaces in the step's own run. */
export function startPrepared(steps: readonly IngestionStep[], finished: IngestionStep, ctx: IngestionContext): void {
  for (const step of steps) {
    if (step.prepare?.after !== finished.id) continue;
    let work: Promise<unknown> | null;
    try {
      work = step.prepare.start(ctx);
    } catch (error) {
      work = Promise.reject(error); // the preparing step's failure, not the finished one's
    }
    if (!work) continue;
    work.catch(() => undefined); // not unhandled when an earlier step fails before this one runs
    ctx.prepared.set(step.id, work);
  }
}

/** The document was deleted or re-queued meanwhile: stop quietly. */
export class DocumentStale extends Error {
  constructor() {
    super('document deleted or re-queued while processing');
  }
}

/** The document's organization's share of the heavy-work pool. */
const workOf = (ctx: IngestionContext): WorkAttribution => ({ tenant: workTenant(ctx.document.organizationId) });

const fileNameOf = (doc: KnowledgeDocument) => doc.blobKey?.split('/').pop() ?? doc.title;

function embeddingTypeOf(mimeType: string): EmbeddingType {
  if (mimeType.startsWith('image/')) return 'image';
  if (mimeType.startsWith('audio/') || mimeType.startsWith('video/')) return 'transcript';
  return 'text';
}

export const loadStep: IngestionStep = {
  id: 'load',
  async run(ctx) {
    const { document: doc, deps } = ctx;
    if (!doc.blobKey) throw new DomainError('VALIDATION', 'The document has no stored content to process');
    const bytes = await deps.blobs.get(doc.blobKey);
    ctx.loaded = await deps.loader.load({ bytes, filename: fileNameOf(doc), declaredMimeType: doc.mimeType }, workOf(ctx));
    ctx.embeddingType = embeddingTypeOf(ctx.loaded.mimeType);
    ctx.counters.characters = ctx.loaded.text.length;
  },
};

export const chunkStep: IngestionStep = {
  id: 'chunk',
  async run(ctx) {
    const { size, overlap } = ctx.knowledgeBase.settings.chunking ?? ctx.deps.settings.defaultChunking;
    const text = ctx.loaded!.text;
    const work = ctx.deps.heavyWork;
    ctx.chunks = work
      ? await work.run('text.chunk', { text, options: { size, overlap } }, workOf(ctx))
      : chunkText(text, { size, overlap });
    if (ctx.chunks.length === 0) throw new DomainError('VALIDATION', `No extractable text in "${ctx.document.title}"`);
    ctx.counters.chunks = ctx.chunks.length;
  },
};

export const embedStep: IngestionStep = {
  id: 'embed',
  async run(ctx) {
    const { deps, knowledgeBase: kb } = ctx;
    if (!kb.settings.embedding) {
      // a knowledge base written without settings (not through the API) gets the defaults on first use
      kb.settings = {
        ...kb.settings,
        embedding: deps.settings.defaultEmbedding,
        chunking: kb.settings.chunking ?? deps.settings.defaultChunking,
      };
      await deps.store.repos.knowledgeBases.update(kb.organizationId, kb.id, { settings: kb.settings });
    }
    const { model, dimensions } = kb.settings.embedding;
    if (deps.embedder.model !== model) {
      throw new DomainError(
        'NOT_CONFIGURED',
        `This knowledge base uses the embedding model ${model}, but the configured embedder is ${deps.embedder.model}`,
      );
    }
    if (!isFreeModel(model)) await ensureCredits(deps.billing, kb.organizationId);
    if (await ctx.isStale()) throw new DocumentStale();
    const batch = Math.max(1, deps.settings.embedBatchSize);
    const batches: string[][] = [];
    for (let i = 0; i < ctx.chunks.length; i += batch) batches.push(ctx.chunks.slice(i, i + batch).map((c) => c.content));
    const results = await mapConcurrently(batches, Math.max(1, deps.settings.embedConcurrency ?? 1), async (texts) => {
      const result = await deps.embedder.embed(texts, { dimensions, purpose: 'document', work: workOf(ctx) });
      if (result.vectors.length !== texts.length)
        throw new DomainError('UPSTREAM_FAILED', 'The embedder returned a different number of vectors than texts');
      return result;
    });
    ctx.vectors = results.flatMap((r) => r.vectors);
    for (const r of results) ctx.usage.embeddingTokens += r.usage.tokens;
  },
};

/** `work` over `items` with at most `limit` calls in flight; results in the items' order. */
async function mapConcurrently<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

export const storeStep: IngestionStep = {
  id: 'store',
  async run(ctx) {
    const { document: doc, deps } = ctx;
    if (await ctx.isStale()) throw new DocumentStale();
    const chunks: VectorChunk[] = ctx.chunks.map((c, i) => ({
      id: chunkId(doc.id, c.index),
      organizationId: doc.organizationId,
      knowledgeBaseId: doc.knowledgeBaseId,
      documentId: doc.id,
      chunkIndex: c.index,
      content: c.content,
      embedding: ctx.vectors[i],
      embeddingType: ctx.embeddingType,
      importance: DEFAULT_CHUNK_IMPORTANCE,
      metadata: { documentTitle: doc.title, start: c.start, end: c.end, ...(doc.sourceId ? { sourceId: doc.sourceId } : {}) },
    }));
    const { written } = await deps.vectorIndex.replaceDocument(
      { organizationId: doc.organizationId, knowledgeBaseId: doc.knowledgeBaseId, documentId: doc.id },
      chunks,
    );
    ctx.counters.chunksWritten = written;
  },
  async compensate(ctx) {
    await ctx.deps.vectorIndex.deleteByDocument(ctx.document.organizationId, ctx.document.id);
  },
};

const summaryInput = (ctx: IngestionContext) => ({ text: ctx.loaded!.text, title: ctx.document.title });

export const summaryStep: IngestionStep = {
  id: 'summary',
  optional: true,
  // it needs only the loaded text: in the heavy-work pool, it runs while the chunks are embedded and stored (started
  // after `load` it delayed the chunking, which shares the pool, for no gain the ingest bench could see)
  prepare: { after: 'chunk', start: (ctx) => ctx.deps.heavyWork?.run('text.summarize', summaryInput(ctx), workOf(ctx)) ?? null },
  async run(ctx) {
    const early = ctx.prepared.get('summary') as Promise<DocumentDigest> | undefined;
    const input = summaryInput(ctx);
    ctx.digest = await (early ?? summarize(input.text, { title: input.title }));
  },
};

export const defaultIngestionSteps: readonly IngestionStep[] = [loadStep, chunkStep, embedStep, storeStep, summaryStep];

/** Hash of the indexed text (after loading), kept on the document. */
export const loadedHash = (ctx: IngestionContext) => (ctx.loaded ? contentHash(ctx.loaded.text) : null);
