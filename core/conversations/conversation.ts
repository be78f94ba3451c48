/** A chat source as stored with an assistant message and returned by chat (spec 2.9). */
export interface ChatSource {
  content: string;
  /** Combined retrieval score, 0-1. */
  score: number;
  documentTitle: string;
  knowledgeBaseId: string;
}

/** Spec 2.9 usage object; cost is what the wallet was charged (USD). */
export interface ChatUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  cost: number;
}

export type VariableValues = Record<string, unknown>;

export interface Conversation {
  id: string;
  organizationId: string;
  agentId: string;
  /** The signed-in user who owns it (null for API-key and anonymous conversations). */
  userId: string | null;
  /** Anonymous visitor of the public surface (null otherwise). */
  anonymousId: string | null;
  /** Where it happens: web, api, preview, public... */
  platform: string;
  title: string | null;
  /** The contact resolved from the first inbound message's channel identity (null until then). */
  contactId?: string | null;
  /** The agent channel it came through (email, WhatsApp...); null for the chat surfaces. */
  channelId?: string | null;
  /** Variables a client may read back. */
  variables: VariableValues;
  /** Usable in prompts, never returned by any endpoint. */
  sensitiveVariables: VariableValues;
  /** Names that came from a signed context token: read-only for the conversation. */
  signedVariableNames?: string[];
  /** Set while a human operator has taken the conversation over: the agent does not answer (null otherwise). */
  takeover?: ConversationTakeover | null;
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
}

export interface ConversationTakeover {
  operatorId: string;
  displayName: string;
  /** ISO 8601. */
  since: string;
}

export type MessageRole = 'user' | 'assistant' | 'system';

export interface StoredMessage {
  id: string;
  conversationId: string;
  organizationId: string;
  role: MessageRole;
  content: string;
  sources: ChatSource[];
  promptTokens: number;
  completionTokens: number;
  /** What the wallet was charged for producing this message (assistant messages). */
  costUsd: number;
  model: string | null;
  /** Time from request to the end of the answer (assistant messages). */
  responseMs: number | null;
  /** Free-form: finishReason, attachments, welcome flag... */
  metadata: Record<string, unknown>;
  createdAt: string;
}

export interface ConversationSummary extends Conversation {
  messageCount: number;
}

export interface ConversationFilter {
  organizationId: string;
  agentId?: string;
  /** A user's conversations; `null` is not a filter (omit the key for all users). */
  userId?: string;
  anonymousId?: string;
  platform?: string;
  contactId?: string;
  /** ISO 8601: only conversations updated at or after it. */
  updatedSince?: string;
}

export type ConversationPatch = Partial<Pick<Conversation, 'title' | 'variables' | 'sensitiveVariables' | 'updatedAt' | 'takeover'>>;

/** Conversations and their messages, always read within one organization; deleted ones are invisible. */
export interface ConversationRepository {
  create(conversation: Conversation): Promise<void>;
  findById(organizationId: string, id: string): Promise<Conversation | null>;
  /** Newest activity first (updated_at), with message counts. */
  list(filter: ConversationFilter, page: { limit: number; offset: number }): Promise<{ items: ConversationSummary[]; total: number }>;
  update(organizationId: string, id: string, patch: ConversationPatch): Promise<Conversation | null>;
  softDelete(organizationId: string, id: string, at: string): Promise<boolean>;
  countMessages(organizationId: string, conversationId: string): Promise<number>;
  /** Inserts messages and sets the conversation's updated_at to `touchAt` (null: leave it, e.g. a row just created). */
  addMessages(organizationId: string, conversationId: string, messages: StoredMessage[], touchAt: string | null): Promise<void>;
  /** Oldest first. */
  messages(organizationId: string, conversationId: string, page?: { limit: number; offset: number }): Promise<StoredMessage[]>;
  /** The newest `count` messages, returned oldest first. */
  recentMessages(organizationId: string, conversationId: string, count: number): Promise<StoredMessage[]>;
}
