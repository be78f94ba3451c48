/**
 * Fakes for the chat unit tests: an in-memory store holding only what the chat use cases read and write,
 * scripted chat models, and a retrieval that records its queries.
 */
import { randomUUID } from 'node:crypto';

import type { Agent } from '../../core/agents/agent';
import type { BillingEvent } from '../../core/billing/wallet';
import { type ChatDeps, DEFAULT_CHAT_SETTINGS } from '../../core/chat/chat-deps';
import type { Conversation, ConversationFilter, StoredMessage } from '../../core/conversations/conversation';
import type { Actor } from '../../core/identity/actor';
import type { RetrievedChunk } from '../../core/knowledge/retrieve';
import type { Model } from '../../core/models/model';
import type { AttachmentResolver } from '../../core/ports/attachment-resolver';
import type { ChatCompletion, ChatModel, ChatRequest, ChatStreamPart } from '../../core/ports/chat-model';
import { noGraphSearch } from '../../core/ports/graph-search';
import type { Repositories } from '../../core/ports/repositories';
import type { Store } from '../../core/ports/store';
import type { PromptSection } from '../../core/prompts/prompt-config';

/** Pipeline tests that need no uploaded attachments: every reference is unknown. */
const noAttachmentStore: AttachmentResolver = { resolve: async () => null };

export const ORG = '00000000-0000-4000-8000-000000000001';
export const OTHER_ORG = '00000000-0000-4000-8000-000000000002';
export const USER = '00000000-0000-4000-8000-0000000000a1';
export const KB1 = '00000000-0000-4000-8000-0000000000b1';
export const KB2 = '00000000-0000-4000-8000-0000000000b2';
export const DOC1 = '00000000-0000-4000-8000-0000000000d1';

export const actor = (over: Partial<Actor> = {}): Actor => ({
  userId: USER,
  email: 'u@example.com',
  displayName: 'U',
  platformRole: 'user',
  organizationId: ORG,
  orgRole: 'member',
  ...over,
});

export function makeAgent(over: Partial<Agent> = {}): Agent {
  const now = '2026-01-01T00:00:00.000Z';
  return {
    id: randomUUID(),
    organizationId: ORG,
    name: 'Helper',
    description: 'Answers refunds',
    model: 'local/extractive',
    systemPrompt: null,
    isDraft: false,
    status: 'published',
    streamingEnabled: true,
    fileUploadsEnabled: false,
    voiceEnabled: false,
    voiceSettings: null,
    multimodalConfig: null,
    tools: [],
    templateVariables: [],
    slug: null,
    distribution: null,
    reviewFeedback: null,
    submittedAt: null,
    reviewedBy: null,
    reviewedAt: null,
    publishedAt: null,
    createdBy: USER,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
    ...over,
  };
}

export const PAID_MODEL: Model = {
  id: 'openai/gpt-test',
  name: 'GPT test',
  provider: 'openai',
  contextLength: 1000,
  promptPricePerToken: 0.001,
  completionPricePerToken: 0.002,
  isActive: true,
  isFree: false,
  recommendationScore: 0.5,
  useCases: ['chat'],
  lastSyncedAt: null,
  capabilities: {
    chat: true,
    embeddings: false,
    rerank: false,
    streaming: true,
    tools: false,
    inputModalities: ['text'],
    outputModalities: ['text'],
  },
};

/** In-memory state behind the fake repositories. */
export class FakeDb {
  agents = new Map<string, Agent>();
  conversations = new Map<string, Conversation>();
  messages: StoredMessage[] = [];
  events: BillingEvent[] = [];
  wallets = new Map<string, number>([[ORG, 5]]);
  models = new Map<string, Model>([[PAID_MODEL.id, PAID_MODEL]]);
  links = new Map<string, string[]>();
  docMap = new Map<string, { documentId: string; title: string; summary: string | null; topics: string[]; chunkCount: number }[]>();
  draft = new Map<string, PromptSection[]>();
  live = new Map<string, PromptSection[]>();

  store(): Store {
    const repos = this.repos();
    return { repos, transaction: (work) => work(repos), afterCommit: (work) => void work() };
  }

  repos(): Repositories {
    const db = this;
    const msgs = (org: string, id: string) => db.messages.filter((m) => m.organizationId === org && m.conversationId === id);
    const r = {
      agents: {
        findById: async (org: string, id: string) => (db.agents.get(id)?.organizationId === org ? db.agents.get(id)! : null),
        findBySlug: async (slug: string) => [...db.agents.values()].find((a) => a.slug === slug) ?? null,
        grantsFor: async () => [],
        list: async (org: string) => {
          const items = [...db.agents.values()].filter((a) => a.organizationId === org);
          return { items, total: items.length };
        },
      },
      organizations: {
        findById: async (id: string) => ({
          id,
          name: id === ORG ? 'Acme' : 'Other',
          slug: 'acme',
          plan: { seats: 5, agents: 5, knowledgeBases: 5 },
          createdAt: '',
        }),
      },
      models: { findById: async (id: string) => db.models.get(id) ?? null },
      wallets: {
        find: async (org: string) =>
          db.wallets.has(org) ? { organizationId: org, balanceUsd: db.wallets.get(org)!, updatedAt: '' } : null,
        adjust: async (org: string, delta: number) => {
          db.wallets.set(org, (db.wallets.get(org) ?? 0) + delta);
          return db.wallets.get(org)!;
        },
      },
      billingEvents: { record: async (e: BillingEvent) => void db.events.push(e) },
      knowledgeLinks: {
        listForAgent: async (_org: string, agentId: string) =>
          (db.links.get(agentId) ?? []).map((id) => ({ knowledgeBase: { id, name: `KB ${id.slice(-2)}` }, link: {} })),
      },
      documents: { map: async (_org: string, kb: string) => db.docMap.get(kb) ?? [] },
      prompts: {
        draft: async (agentId: string) => db.draft.get(agentId) ?? [],
        live: async (agentId: string) => (db.live.has(agentId) ? { agentId, versionId: `v-${agentId}` } : null),
        versionItems: async (versionId: string) => db.live.get(versionId.slice(2)) ?? [],
      },
      conversations: {
        create: async (c: Conversation) => void db.conversations.set(c.id, structuredClone(c)),
        findById: async (org: string, id: string) => {
          const c = db.conversations.get(id);
          return c && c.organizationId === org && !c.deletedAt ? structuredClone(c) : null;
        },
        update: async (org: string, id: string, patch: Partial<Conversation>) => {
          const c = db.conversations.get(id);
          if (!c || c.organizationId !== org) return null;
          Object.assign(c, structuredClone(patch));
          return structuredClone(c);
        },
        list: async (f: ConversationFilter, page: { limit: number; offset: number }) => {
          const all = [...db.conversations.values()].filter(
            (c) =>
              c.organizationId === f.organizationId &&
              (f.agentId === undefined || c.agentId === f.agentId) &&
              (f.userId === undefined || c.userId === f.userId) &&
              (f.platform === undefined || c.platform === f.platform),
          );
          const items = all
            .slice(page.offset, page.offset + page.limit)
            .map((c) => ({ ...c, messageCount: msgs(c.organizationId, c.id).length }));
          return { items, total: all.length };
        },
        countMessages: async (org: string, id: string) => msgs(org, id).length,
        addMessages: async (_org: string, _id: string, m: StoredMessage[]) => void db.messages.push(...m),
        messages: async (org: string, id: string) => msgs(org, id),
        recentMessages: async (org: string, id: string, n: number) => msgs(org, id).slice(-n),
        softDelete: async () => false,
      },
    };
    return r as unknown as Repositories;
  }
}

/** A chat model that answers `reply` word by word and records its requests. */
export class ScriptedModel implements ChatModel {
  readonly id = 'scripted';
  requests: ChatRequest[] = [];
  /** Tokens emitted by the last stream before it stopped. */
  emitted = 0;
  error: Error | null = null;
  constructor(
    public reply = 'Refunds take fourteen days.',
    private readonly options: { prefix?: string; delayMs?: number } = {},
  ) {}

  supports(model: string) {
    return model.startsWith(this.options.prefix ?? '');
  }

  private usage(request: ChatRequest, completionTokens: number) {
    const promptTokens = request.messages.reduce((n, m) => n + m.content.split(/\s+/).filter(Boolean).length, 0);
    return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
  }

  async complete(request: ChatRequest): Promise<ChatCompletion> {
    this.requests.push(request);
    if (this.error) throw this.error;
    return { text: this.reply, usage: this.usage(request, this.reply.split(' ').length), finishReason: 'stop' };
  }

  async *stream(request: ChatRequest): AsyncIterable<ChatStreamPart> {
    this.requests.push(request);
    if (this.error) throw this.error;
    this.emitted = 0;
    let text = '';
    for (const word of this.reply.match(/\S+\s*/g) ?? []) {
      if (this.options.delayMs) await new Promise((r) => setTimeout(r, this.options.delayMs));
      if (request.signal?.aborted) break;
      this.emitted++;
      text += word;
      yield { type: 'token', token: word };
    }
    yield {
      type: 'done',
      completion: { text, usage: this.usage(request, this.emitted), finishReason: request.signal?.aborted ? 'aborted' : 'stop' },
    };
  }
}

export const chunk = (over: Partial<RetrievedChunk> = {}): RetrievedChunk => ({
  chunkId: randomUUID(),
  knowledgeBaseId: KB1,
  documentId: DOC1,
  chunkIndex: 0,
  content: 'Refunds are paid within fourteen days of the request.',
  embeddingType: 'text',
  metadata: {},
  score: 0.8,
  vectorScore: 0.8,
  textScore: 0.5,
  rerankScore: null,
  matchedBy: ['vector', 'text'],
  ...over,
});

export function makeDeps(db: FakeDb, over: Partial<ChatDeps> = {}) {
  const queries: { organizationId: string; knowledgeBaseIds: string[]; query: string }[] = [];
  const model = new ScriptedModel();
  const store = db.store();
  let t = Date.parse('2026-02-01T10:00:00.000Z');
  const deps: ChatDeps = {
    store,
    clock: { now: () => new Date((t += 5)) },
    ids: { uuid: () => randomUUID(), secret: () => randomUUID() },
    billing: { store, clock: { now: () => new Date() }, ids: { uuid: () => randomUUID(), secret: () => 'x' }, marginMultiplier: 1.5 },
    chatModel: model,
    retrieval: async (input) => {
      queries.push(input);
      return { chunks: [chunk()] };
    },
    attachments: noAttachmentStore,
    graph: noGraphSearch,
    speech: null,
    settings: { ...DEFAULT_CHAT_SETTINGS, contextTokenSecret: 'test-context-secret' },
    ...over,
  };
  return { deps, queries, model: (over.chatModel as ScriptedModel | undefined) ?? model };
}
