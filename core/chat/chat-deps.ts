import type { BillingDeps } from '../billing/billing';
import type { ContactDeps } from '../contacts/contact-deps';
import type { RetrievedChunk } from '../knowledge/retrieve';
import type { AttachmentResolver } from '../ports/attachment-resolver';
import type { ChatModel } from '../ports/chat-model';
import type { Clock } from '../ports/clock';
import type { GraphSearch } from '../ports/graph-search';
import type { IdGenerator } from '../ports/id-generator';
import type { SpeechSynthesizer } from '../ports/media-understanding';
import type { RetrievalRecorder } from '../ports/retrieval-recorder';
import type { Store } from '../ports/store';

/**
 * Retrieval over the agent's knowledge bases: the knowledge area's `retrieve` (hybrid search, RRF, rerank,
 * thresholds, caps, token budget). The wiring also records the retrieval's own billing event when a paid
 * embedder or reranker ran. Called outside any store transaction.
 */
export type ChatRetrieval = (input: {
  organizationId: string;
  knowledgeBaseIds: string[];
  query: string;
}) => Promise<{ chunks: RetrievedChunk[] }>;

export interface ChatSettings {
  /** The platform's system default prompt (between the agent's configuration and the built-in fallback). */
  systemDefaultPrompt: string | null;
  /** Stored messages sent to the model as history. */
  historyMessages: number;
  /** Messages (the new one included) the retrieval query is built from (spec 4.4: 5). */
  retrievalQueryMessages: number;
  /** Document-map entries shown to the model. */
  documentMapEntries: number;
  /** Graph entities shown to the model. */
  graphEntities: number;
  /** HMAC/AES key material of context tokens (derive it from a platform secret). */
  contextTokenSecret: string;
  /** Longest lifetime a context token may ask for, and the default. */
  contextTokenMaxTtlSeconds: number;
  contextTokenDefaultTtlSeconds: number;
}

export const DEFAULT_CHAT_SETTINGS: Omit<ChatSettings, 'contextTokenSecret'> = {
  systemDefaultPrompt: null,
  historyMessages: 20,
  retrievalQueryMessages: 5,
  documentMapEntries: 30,
  graphEntities: 5,
  contextTokenMaxTtlSeconds: 7 * 24 * 3600,
  contextTokenDefaultTtlSeconds: 3600,
};

export type ChatLog = (level: 'debug' | 'info' | 'warn' | 'error', message: string, extra?: unknown) => void;

/** Everything the chat and conversation use cases need. */
export interface ChatDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  billing: BillingDeps;
  /** Serves every model id the platform can call (the app's ChatModelRouter). */
  chatModel: ChatModel;
  /** Null when the knowledge area is not wired: chat then answers without retrieved context. */
  retrieval: ChatRetrieval | null;
  attachments: AttachmentResolver;
  graph: GraphSearch;
  /** Text to speech for `includeVoice`; null when no provider is configured (400 on request). */
  speech: SpeechSynthesizer | null;
  settings: ChatSettings;
  /** Contact resolution and field extraction after each turn (contacts area); absent: no contacts recorded. */
  contacts?: Pick<ContactDeps, 'ids' | 'identifiers'>;
  log?: ChatLog;
  /** Analytics of each turn's retrieval (buffered); absent: not recorded. */
  recorder?: RetrievalRecorder;
}
