import { createHmac } from 'node:crypto';

import type { BillingDeps } from '../core/billing/billing';
import { type ChatDeps, type ChatRetrieval, DEFAULT_CHAT_SETTINGS } from '../core/chat/chat-deps';
import type { KnowledgeDeps } from '../core/knowledge/knowledge-deps';
import { chargeRetrieval, retrieve } from '../core/knowledge/retrieve';
import { NO_TRACER, type Tracer } from '../core/ports/tracer';
import type { Infrastructure } from './infrastructure';
import { attachmentResolver } from './public-chat-services';

type RetrievalParts = Pick<KnowledgeDeps, 'store' | 'vectorIndex' | 'embedder' | 'reranker' | 'billing' | 'pricing' | 'learningPrior'>;

/** Chat retrieval = the knowledge area's `retrieve`, plus its billing event when a paid embedder or reranker ran. */
export function chatRetrieval(k: RetrievalParts, log: Infrastructure['log'], tracer: Tracer = NO_TRACER): ChatRetrieval {
  return (input) =>
    tracer.inSpan('retrieval', { 'retrieval.knowledge_bases': input.knowledgeBaseIds.length }, async () => {
      const result = await retrieve(k, input);
      await chargeRetrieval(k, input.organizationId, result.usage, { purpose: 'chat' }).catch((e) =>
        log('warn', 'could not bill chat retrieval', e),
      );
      return result;
    });
}

/**
 * The chat area's dependencies. Attachments resolve from the public-chat area's attachment store; graph search
 * is the GRAPH_SEARCH port (empty until the graph area binds its adapter).
 */
export function buildChatDeps(infra: Infrastructure, billing: BillingDeps, knowledge: RetrievalParts | null): ChatDeps {
  return {
    store: infra.store,
    clock: infra.clock,
    ids: infra.ids,
    billing,
    chatModel: infra.chat.chatModel,
    retrieval: knowledge ? chatRetrieval(knowledge, infra.log, infra.tracing?.tracer) : null,
    attachments: attachmentResolver(infra.store),
    graph: infra.knowledge.graphSearch,
    speech: infra.chat.speech,
    settings: {
      ...DEFAULT_CHAT_SETTINGS,
      // Domain-separated from the JWT secret every role shares, so split roles verify each other's tokens.
      contextTokenSecret: createHmac('sha256', infra.config.secrets.jwt).update('agent-platform/context-tokens').digest('hex'),
    },
    log: (level, message, extra) => infra.log(level, message, extra),
    recorder: infra.analytics.recorder,
  };
}
