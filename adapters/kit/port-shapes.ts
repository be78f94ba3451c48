/** What some ports ask of their adapters besides the common declaration, and the values of composite ports. */
import type { ChatModel } from '../../core/ports/chat-model';
import type { Embedder } from '../../core/ports/embedder';
import type { EventBus } from '../../core/ports/event-bus';
import type { JobQueue } from '../../core/ports/job-queue';
import type { AdapterDefinition } from './adapter-definition';

export interface ChatRouting {
  /** Model id prefixes this provider owns (`cohere/`): such ids go to it, or fail naming `needs` when it is not selected. */
  readonly modelPrefixes: readonly string[];
  readonly needs: string;
  /** Also serves other ids its adapter `supports()` (an OpenAI-compatible endpoint serving `meta-llama/...`). */
  readonly catchAll?: { readonly needs: string };
}
export type ChatProviderDefinition = AdapterDefinition<ChatModel> & ChatRouting;

export interface EmbeddingSize {
  /** Size of new knowledge bases' embeddings with this provider. */
  readonly dimensions: number;
}
export type EmbeddingsProviderDefinition = AdapterDefinition<Embedder> & EmbeddingSize;

/** The QUEUE port: one technology carries both the job queue and the event bus. */
export interface Messaging {
  queue: JobQueue;
  bus: EventBus;
}
