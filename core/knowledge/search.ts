import { ensureCredits } from '../billing/billing';
import type { Actor } from '../identity/actor';
import { canOnResource } from '../identity/policy';
import { activeOrganization } from '../identity/policy';
import { DomainError } from '../shared/errors';
import { mergeGraphDiscovery, startGraphDiscovery } from './graph-discovery';
import type { KnowledgeDeps } from './knowledge-deps';
import { isFreeModel } from './pricing';
import { capPerGroup, DEFAULT_RANKING } from './ranking';
import { chargeRetrieval, retrievalProviderUsd, type RetrievalUsage, retrieve, type RetrievedChunk } from './retrieve';
import type { SearchSource } from './search-log';
import { recordSearch } from './search-recording';
import type { DiscoveryMethod, SearchResult } from './search-result';

export interface SearchInput {
  knowledgeBaseIds: string[];
  query?: string;
  images?: { base64: string; mimeType: string }[];
  files?: { content: string; mimeType?: string }[];
  /** Results per knowledge base (default 3). */
  topK?: number;
}

export interface SearchOrigin {
  source?: SearchSource;
  agentId?: string;
  conversationId?: string;
  messageId?: string;
}

export type { DiscoveryMethod, SearchResult } from './search-result';

/** Characters of one file's text used as a query. */
export const FILE_QUERY_CHARS = 4000;

interface QueryText {
  text: string;
  method: DiscoveryMethod;
}

async function queryTexts(deps: KnowledgeDeps, input: SearchInput): Promise<QueryText[]> {
  const out: QueryText[] = [];
  if (input.query?.trim()) out.push({ text: input.query.trim(), method: 'semantic' });
  for (const f of input.files ?? [])
    if (f.content?.trim()) out.push({ text: f.content.trim().slice(0, FILE_QUERY_CHARS), method: 'semantic' });
  if (input.images?.length) {
    if (!deps.imageDescriber) {
      throw new DomainError(
        'VALIDATION',
        'Image search needs a vision-capable model to describe the images, and none is configured; search with query text instead',
      );
    }
    for (const image of input.images) {
      const { caption, text } = await deps.imageDescriber.describe(Buffer.from(image.base64, 'base64'), { mimeType: image.mimeType });
      const described = [caption, text]
        .map((s) => s.trim())
        .filter(Boolean)
        .join('\n');
      if (described) out.push({ text: described, method: 'image' });
    }
  }
  return out;
}

function followUps(results: SearchResult[], topicsByDoc: Map<string, { title: string; topics: string[] }>, query: string): string[] {
  const asked = query.toLowerCase();
  const out: string[] = [];
  for (const r of results) {
    const doc = topicsByDoc.get(r.metadata.documentId);
    const topic = doc?.topics.find((t) => !asked.includes(t) && !out.some((q) => q.includes(`"${t}"`)));
    if (!doc || !topic) continue;
    out.push(`What does ${doc.title} say about "${topic}"?`);
    if (out.length === 3) break;
  }
  return out;
}

/** The search log row per knowledge base, the billing event (also for free models) and the analytics record. */
async function recordSearchBookkeeping(
  deps: KnowledgeDeps,
  actor: Actor,
  s: {
    organizationId: string;
    ids: string[];
    queries: QueryText[];
    results: SearchResult[];
    searched: RetrievedChunk[];
    usage: RetrievalUsage;
    origin: SearchOrigin;
    started: number;
  },
): Promise<void> {
  const { organizationId, ids, origin } = s;
  const loggedQuery = (s.queries.map((q) => q.text).join(' | ') || '').slice(0, 1000);
  const now = deps.clock.now().toISOString();
  const logged = deps.store.repos.searchLog.record(
    ids.map((kbId) => {
      const own = s.results.filter((r) => r.knowledgeBaseId === kbId);
      return {
        id: deps.ids.uuid(),
        organizationId,
        knowledgeBaseId: kbId,
        query: loggedQuery,
        source: origin.source ?? 'manual',
        userId: actor.userId,
        agentId: origin.agentId ?? null,
        conversationId: origin.conversationId ?? null,
        messageId: origin.messageId ?? null,
        resultCount: own.length,
        topScore: own.length ? Math.max(...own.map((r) => r.score)) : null,
        durationMs: Date.now() - s.started,
        createdAt: now,
      };
    }),
  );
  const billed = chargeRetrieval(
    deps,
    organizationId,
    s.usage,
    { knowledgeBaseIds: ids, source: origin.source ?? 'manual' },
    { recordFree: true },
  );
  const [, event] = await Promise.all([logged, billed]);
  recordSearch(deps, {
    organizationId,
    knowledgeBaseIds: ids,
    query: loggedQuery,
    origin,
    chunks: s.searched.map((c) => ({ chunkId: c.chunkId, knowledgeBaseId: c.knowledgeBaseId, documentId: c.documentId, score: c.score })),
    costUsd: event?.costUsd ?? 0,
  });
}

/**
 * Search across knowledge bases the caller may read (spec 4.9). The query, each file's text and each
 * described image are retrieved separately and merged (best score per chunk, discovery methods united),
 * then capped again per document and per knowledge base. Every search is logged per knowledge base.
 */
export async function searchKnowledge(deps: KnowledgeDeps, actor: Actor, input: SearchInput, origin: SearchOrigin = {}) {
  const started = Date.now();
  const organizationId = activeOrganization(actor);
  const ids = [...new Set(input.knowledgeBaseIds ?? [])];
  if (ids.length === 0) throw new DomainError('VALIDATION', 'knowledgeBaseIds must name at least one knowledge base');
  if (!input.query?.trim() && !input.images?.length && !input.files?.some((f) => f.content?.trim())) {
    throw new DomainError('VALIDATION', 'Provide at least one of query, images or files');
  }
  const repos = deps.store.repos;
  const kbs = await repos.knowledgeBases.findMany(organizationId, ids);
  if (kbs.length !== ids.length) throw new DomainError('NOT_FOUND', 'Knowledge base not found');
  for (const kb of kbs) {
    const grants = actor.orgRole === 'viewer' ? await repos.knowledgeBases.grantsFor(kb.id, actor.userId) : [];
    if (!canOnResource(actor.orgRole, 'read', grants)) throw new DomainError('FORBIDDEN', 'You cannot read one of these knowledge bases');
  }
  if (!isFreeModel(deps.embedder.model) || (deps.reranker && !isFreeModel(deps.reranker.model)))
    await ensureCredits(deps.billing, organizationId);

  const topK = input.topK ?? DEFAULT_RANKING.topKPerKnowledgeBase;
  // graph discovery runs while the vector and text retrieval below runs
  const graphHits = startGraphDiscovery(deps, { organizationId, knowledgeBaseIds: ids, text: input.query, limit: topK * ids.length });
  const queries = await queryTexts(deps, input);
  const merged = new Map<string, { chunk: RetrievedChunk; methods: Set<DiscoveryMethod> }>();
  const usage: RetrievalUsage = { embeddingModel: null, embeddingTokens: 0, rerankModel: null, rerankSearchUnits: 0 };
  for (const q of queries) {
    const r = await retrieve(deps, {
      organizationId,
      knowledgeBaseIds: ids,
      query: q.text,
      options: { topKPerKnowledgeBase: topK },
      knowledgeBases: kbs,
    });
    usage.embeddingModel = r.usage.embeddingModel ?? usage.embeddingModel;
    usage.embeddingTokens += r.usage.embeddingTokens;
    usage.rerankModel = r.usage.rerankModel ?? usage.rerankModel;
    usage.rerankSearchUnits += r.usage.rerankSearchUnits;
    for (const c of r.chunks) {
      const seen = merged.get(c.chunkId);
      if (!seen) merged.set(c.chunkId, { chunk: c, methods: new Set([q.method]) });
      else {
        seen.methods.add(q.method);
        if (c.score > seen.chunk.score) seen.chunk = c;
      }
    }
  }
  const ranked = capPerGroup(
    [...merged.values()].sort((a, b) => b.chunk.score - a.chunk.score),
    DEFAULT_RANKING.maxChunksPerDocument,
    topK,
  );
  const docs = await repos.documents.findMany(organizationId, [...new Set(ranked.map((r) => r.chunk.documentId))]);
  const docInfo = new Map(docs.map((d) => [d.id, { title: d.title, topics: d.topics }]));
  const retrieved: SearchResult[] = ranked
    .filter((r) => docInfo.has(r.chunk.documentId)) // a document deleted a moment ago
    .map((r) => ({
      content: r.chunk.content,
      score: r.chunk.score,
      knowledgeBaseId: r.chunk.knowledgeBaseId,
      metadata: {
        documentId: r.chunk.documentId,
        documentTitle: docInfo.get(r.chunk.documentId)!.title,
        chunkIndex: r.chunk.chunkIndex,
        embeddingType: r.chunk.embeddingType,
      },
      discoveryMethods: (['semantic', 'image'] as const).filter((m) => r.methods.has(m)),
    }));

  const results = await mergeGraphDiscovery(deps, organizationId, retrieved, await graphHits, topK);

  const searched = ranked.filter((r) => docInfo.has(r.chunk.documentId)).map((r) => r.chunk);
  const billedUsage = { ...usage, embeddingModel: usage.embeddingModel ?? deps.embedder.model };
  const bookkeeping = recordSearchBookkeeping(deps, actor, {
    organizationId,
    ids,
    queries,
    results,
    searched,
    usage: billedUsage,
    origin,
    started,
  });
  // A search that moves no money answers without waiting for its log rows: their statements are already
  // queued (the embedded store runs them in order, so a read sent after this answer sees them), and a failure
  // is logged. A paid search waits, so the balance has changed when it answers.
  if (retrievalProviderUsd(deps.pricing, billedUsage) > 0) await bookkeeping;
  else void bookkeeping.catch((error) => deps.log('warn', 'search: could not record the search log or its billing event', error));
  return { results, suggestedFollowUps: followUps(results, docInfo, input.query ?? '') };
}
