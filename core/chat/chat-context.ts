/**
 * Steps 4-7 of the chat pipeline (spec 4.4): the retrieval query, retrieval over every linked knowledge base,
 * the knowledge bases' document map, graph entity search, and how all of it is shown to the model.
 */
import type { ChatSource } from '../conversations/conversation';
import type { DocumentMapEntry } from '../knowledge/document';
import type { RetrievedChunk } from '../knowledge/retrieve';
import type { ResolvedAttachment } from '../ports/attachment-resolver';
import type { ChatContextChunk } from '../ports/chat-model';
import type { GraphEntityHit } from '../ports/graph-search';
import type { Repositories } from '../ports/repositories';
import type { ChatDeps } from './chat-deps';

export interface KnowledgeContext {
  knowledgeBaseIds: string[];
  chunks: RetrievedChunk[];
  sources: ChatSource[];
  documentMap: (DocumentMapEntry & { knowledgeBaseId: string })[];
  entities: GraphEntityHit[];
}

/** Attachment text taken into the retrieval query (the whole text still goes to the model). */
const QUERY_ATTACHMENT_CHARS = 2000;

/** The last `count` messages (the new one included, newest last) plus attachment text. */
export function retrievalQuery(history: { content: string }[], message: string, attachments: ResolvedAttachment[], count: number): string {
  const recent = [...history.map((m) => m.content), message].slice(-Math.max(1, count));
  const attached = attachments.map((a) => a.text.slice(0, QUERY_ATTACHMENT_CHARS)).filter((t) => t.trim());
  return [...recent, ...attached].join('\n').trim();
}

function titleOf(chunk: RetrievedChunk, titles: Map<string, string>): string {
  const meta = chunk.metadata ?? {};
  const fromMeta = (meta.documentTitle ?? meta.title) as unknown;
  return titles.get(chunk.documentId) ?? (typeof fromMeta === 'string' && fromMeta ? fromMeta : 'Untitled document');
}

/** Retrieval, document map and graph entities of the agent's linked knowledge bases. */
export async function gatherKnowledge(
  deps: ChatDeps,
  repos: Repositories,
  input: { organizationId: string; agentId: string; query: string },
): Promise<KnowledgeContext> {
  const linked = await repos.knowledgeLinks.listForAgent(input.organizationId, input.agentId);
  const knowledgeBaseIds = linked.map((l) => l.knowledgeBase.id);
  if (knowledgeBaseIds.length === 0) return { knowledgeBaseIds, chunks: [], sources: [], documentMap: [], entities: [] };
  const [retrieved, maps, entities] = await Promise.all([
    deps.retrieval
      ? deps.retrieval({ organizationId: input.organizationId, knowledgeBaseIds, query: input.query })
      : Promise.resolve({ chunks: [] as RetrievedChunk[] }),
    Promise.all(
      knowledgeBaseIds.map(async (id) => (await repos.documents.map(input.organizationId, id)).map((e) => ({ ...e, knowledgeBaseId: id }))),
    ),
    deps.graph.searchEntities({
      organizationId: input.organizationId,
      knowledgeBaseIds,
      text: input.query,
      limit: deps.settings.graphEntities,
    }),
  ]);
  const documentMap = maps.flat();
  const titles = new Map(documentMap.map((e) => [e.documentId, e.title]));
  const chunks = retrieved.chunks;
  const sources = chunks.map((c) => ({
    content: c.content,
    score: c.score,
    documentTitle: titleOf(c, titles),
    knowledgeBaseId: c.knowledgeBaseId,
  }));
  return { knowledgeBaseIds, chunks, sources, documentMap, entities: entities.slice(0, deps.settings.graphEntities) };
}

/** Context pieces as the ChatModel port takes them (the local extractive model answers from these). */
export const contextChunks = (k: KnowledgeContext): ChatContextChunk[] =>
  k.sources.map((s) => ({ content: s.content, documentTitle: s.documentTitle }));

/** The system message: rendered instructions, then retrieved context, document map, entities, attachments. */
export function composeSystemMessage(
  instructions: string,
  k: KnowledgeContext,
  attachments: ResolvedAttachment[],
  mapEntries: number,
): string {
  const parts = [instructions.trim()];
  if (k.sources.length) {
    parts.push(
      `Knowledge base context (cite it; do not invent facts beyond it):\n${k.sources.map((s, i) => `[${i + 1}] ${s.documentTitle}\n${s.content}`).join('\n\n')}`,
    );
  } else if (k.knowledgeBaseIds.length) {
    parts.push('Knowledge base context: nothing relevant was found for this message.');
  }
  if (k.documentMap.length) {
    const shown = k.documentMap.slice(0, mapEntries);
    const more = k.documentMap.length - shown.length;
    const lines = shown.map(
      (e) => `- ${e.title}${e.summary ? `: ${e.summary}` : ''}${e.topics.length ? ` (topics: ${e.topics.join(', ')})` : ''}`,
    );
    parts.push(`Documents in the knowledge bases:\n${lines.join('\n')}${more > 0 ? `\n(and ${more} more)` : ''}`);
  }
  if (k.entities.length) {
    const lines = k.entities.map(
      (e) =>
        `- ${e.name} (${e.type})${e.description ? `: ${e.description}` : ''}${e.relations.length ? `; ${e.relations.join('; ')}` : ''}`,
    );
    parts.push(`Known entities:\n${lines.join('\n')}`);
  }
  for (const a of attachments) {
    if (a.text.trim()) parts.push(`Attached file ${a.filename} (${a.mimeType}):\n${a.text}`);
  }
  return parts.filter(Boolean).join('\n\n');
}
