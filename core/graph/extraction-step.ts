/**
 * Graph extraction as an optional step of the ingestion pipeline (spec 3.1), run by the ingestion worker
 * after the chunks are stored: the extractor reads the chunks (pinned entities seed it; the offline extractor
 * starts as soon as the chunks are made), the document's previous contribution is replaced, and the document's
 * graph status is recorded: `completed`, `partial` when some chunks failed, `failed` (the document itself still
 * completes). A knowledge base with
 * `settings.graphExtraction: false` skips it. With a model named (GRAPH_EXTRACTION_MODEL or the knowledge
 * base's `settings.graphExtractionModel`) a model extracts and its usage is billed; else the offline extractor.
 */
import type { BillingDeps } from '../billing/billing';
import { charge } from '../billing/billing';
import { DocumentStale, type IngestionContext, type IngestionStep } from '../knowledge/ingestion-steps';
import type { GraphExtraction, GraphExtractor } from '../ports/graph-extractor';
import type { DocumentGraph, GraphStore } from '../ports/graph-store';
import { workTenant } from '../ports/heavy-work';
import { foldName, keysOf, normalizeType } from './names';

export type GraphStatus = 'completed' | 'partial' | 'failed';

/** Extraction output as store input: names folded into keys, relationships named by keys. */
export function toDocumentGraph(x: GraphExtraction): DocumentGraph {
  const keyOf = new Map<string, string>();
  const entities = x.entities
    .map((e) => ({ ...e, keys: keysOf(e.name, e.aliases) }))
    .filter((e) => e.keys.length > 0)
    .map((e) => {
      for (const label of [e.name, ...e.aliases]) keyOf.set(foldName(label), e.keys[0]);
      return {
        keys: e.keys,
        name: e.name,
        type: normalizeType(e.type),
        aliases: e.aliases,
        confidence: e.confidence,
        mentions: e.mentions,
      };
    });
  const relationships = x.relationships
    .map((r) => ({ ...r, sourceKey: keyOf.get(foldName(r.source)) ?? '', targetKey: keyOf.get(foldName(r.target)) ?? '' }))
    .filter((r) => r.sourceKey && r.targetKey && r.sourceKey !== r.targetKey)
    .map((r) => ({
      sourceKey: r.sourceKey,
      targetKey: r.targetKey,
      type: normalizeType(r.type),
      weight: r.weight,
      chunkIndex: r.chunkIndex,
      evidence: r.evidence,
    }));
  return { entities, relationships };
}

type Usage = NonNullable<GraphExtraction['usage']>;

/** Model-backed extraction, when the deployment or the knowledge base names a model. */
export interface ExtractionModels {
  /** GRAPH_EXTRACTION_MODEL: used when the knowledge base names none; null: the offline extractor. */
  defaultModel: string | null;
  extractorFor(model: string): GraphExtractor;
  /**
   * Called before any model call: refuses a model the catalogue cannot price, or a paid model when the
   * organization's wallet is empty; returns the provider cost (USD) of a usage (0 for free models).
   */
  priceFor(organizationId: string, model: string): Promise<(usage: Usage) => number>;
}

export interface GraphStepDeps {
  graph: GraphStore;
  /** The offline extractor (no model). */
  extractor: GraphExtractor;
  billing: BillingDeps;
  /** USD of an extraction by `extractor` that reports usage (0 for free models). */
  costUsd(usage: Usage): number;
  models?: ExtractionModels;
}

/**
 * The model that extracts a knowledge base's graph: `settings.graphExtractionModel` (a catalogue model id, or
 * `offline`), else the deployment default. `local/...` models are the offline provider: the offline extractor.
 */
export function extractionModelOf(settings: Record<string, unknown>, defaultModel: string | null): string | null {
  const chosen = typeof settings.graphExtractionModel === 'string' ? settings.graphExtractionModel.trim() : '';
  const model = chosen || defaultModel || '';
  return model && model !== 'offline' && !model.startsWith('local/') ? model : null;
}

export function graphExtractionStep(g: GraphStepDeps): IngestionStep {
  const settingsOf = (ctx: IngestionContext) => ctx.knowledgeBase.settings as Record<string, unknown>;
  const modelOf = (ctx: IngestionContext) => (g.models ? extractionModelOf(settingsOf(ctx), g.models.defaultModel) : null);
  const extract = async (extractor: GraphExtractor, ctx: IngestionContext): Promise<GraphExtraction> => {
    const { document: doc } = ctx;
    const pinned = await g.graph.getPinned({ organizationId: doc.organizationId, knowledgeBaseId: doc.knowledgeBaseId });
    return extractor.extract(
      {
        documentTitle: doc.title,
        chunks: ctx.chunks.map((c) => ({ index: c.index, content: c.content })),
        pinned,
      },
      { tenant: workTenant(doc.organizationId) },
    );
  };
  return {
    id: 'graph',
    optional: true,
    // The offline extraction needs only the chunks: it runs in the heavy-work pool while the chunks are embedded
    // and stored. A model's is not started early: it is billed, and the document may still fail before this step.
    prepare: {
      after: 'chunk',
      start: (ctx) => (settingsOf(ctx).graphExtraction === false || modelOf(ctx) ? null : extract(g.extractor, ctx)),
    },
    async run(ctx) {
      const { document: doc } = ctx;
      if (settingsOf(ctx).graphExtraction === false) return;
      const scope = { organizationId: doc.organizationId, knowledgeBaseId: doc.knowledgeBaseId };
      try {
        const model = modelOf(ctx);
        const extractor = model ? g.models!.extractorFor(model) : g.extractor;
        const costOf = model ? await g.models!.priceFor(doc.organizationId, model) : g.costUsd;
        // prepared only for the offline extractor (see `prepare`)
        const early = ctx.prepared.get('graph') as Promise<GraphExtraction> | undefined;
        const extraction = await (early ?? extract(extractor, ctx));
        // model calls cost what they cost, whatever came back
        if (extraction.usage)
          await charge(g.billing, {
            organizationId: doc.organizationId,
            kind: 'graph',
            model: extraction.usage.model,
            promptTokens: extraction.usage.promptTokens,
            completionTokens: extraction.usage.completionTokens,
            providerCostUsd: costOf(extraction.usage),
            reference: { documentId: doc.id, knowledgeBaseId: doc.knowledgeBaseId, failedChunks: extraction.failedChunks.length },
          });
        const failed = new Set(extraction.failedChunks).size;
        if (ctx.chunks.length > 0 && failed >= ctx.chunks.length) throw new Error('Graph extraction failed for every chunk');
        if (await ctx.isStale()) throw new DocumentStale();
        const written = await g.graph.replaceDocument(
          { ...scope, documentId: doc.id },
          toDocumentGraph(extraction),
          new Date().toISOString(),
        );
        ctx.counters.graphEntities = written.entities;
        ctx.counters.graphRelationships = written.relationships;
        ctx.metadata.graphStatus = (failed > 0 ? 'partial' : 'completed') satisfies GraphStatus;
      } catch (error) {
        if (!(error instanceof DocumentStale)) ctx.metadata.graphStatus = 'failed' satisfies GraphStatus;
        throw error;
      }
    },
    async compensate(ctx) {
      await g.graph.deleteByDocument(
        { organizationId: ctx.document.organizationId, knowledgeBaseId: ctx.document.knowledgeBaseId },
        ctx.document.id,
      );
    },
  };
}
