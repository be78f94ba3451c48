import type { Model, ModelCapabilities } from './model';

const chat = (inputModalities: ModelCapabilities['inputModalities'], tools = true): ModelCapabilities => ({
  chat: true,
  embeddings: false,
  rerank: false,
  streaming: true,
  tools,
  inputModalities,
  outputModalities: ['text'],
});
const embedding: ModelCapabilities = { chat: false, embeddings: true, rerank: false, streaming: false, tools: false, inputModalities: ['text'], outputModalities: [] };
const rerank: ModelCapabilities = { ...embedding, embeddings: false, rerank: true };

type Seed = Omit<Model, 'isActive' | 'isFree' | 'lastSyncedAt' | 'provider'>;
const perMillion = (usd: number) => usd / 1_000_000;

/**
 * The snapshot shipped with the platform so the catalogue works offline. Prices as listed by the providers
 * when the snapshot was taken; a sync replaces them.
 */
const seeds: Seed[] = [
  { id: 'local/extractive', name: 'Local extractive answerer', contextLength: 32768, promptPricePerToken: 0, completionPricePerToken: 0, capabilities: chat(['text'], false), recommendationScore: 0.5, useCases: ['chat', 'analysis'] },
  { id: 'local/hash-embed-v1', name: 'Local hashed n-gram embeddings', contextLength: 8192, promptPricePerToken: 0, completionPricePerToken: 0, capabilities: embedding, recommendationScore: 0.4, useCases: ['embeddings'] },
  { id: 'local/lexical-rerank-v1', name: 'Local lexical reranker', contextLength: 8192, promptPricePerToken: 0, completionPricePerToken: 0, capabilities: rerank, recommendationScore: 0.4, useCases: ['rerank'] },
  { id: 'openai/gpt-4o', name: 'GPT-4o', contextLength: 128000, promptPricePerToken: perMillion(2.5), completionPricePerToken: perMillion(10), capabilities: chat(['text', 'image']), recommendationScore: 0.9, useCases: ['chat', 'analysis', 'creative', 'coding'] },
  { id: 'openai/gpt-4o-mini', name: 'GPT-4o mini', contextLength: 128000, promptPricePerToken: perMillion(0.15), completionPricePerToken: perMillion(0.6), capabilities: chat(['text', 'image']), recommendationScore: 0.85, useCases: ['chat', 'analysis'] },
  { id: 'openai/gpt-4.1', name: 'GPT-4.1', contextLength: 1047576, promptPricePerToken: perMillion(2), completionPricePerToken: perMillion(8), capabilities: chat(['text', 'image', 'file']), recommendationScore: 0.92, useCases: ['chat', 'coding', 'analysis'] },
  { id: 'openai/gpt-4.1-mini', name: 'GPT-4.1 mini', contextLength: 1047576, promptPricePerToken: perMillion(0.4), completionPricePerToken: perMillion(1.6), capabilities: chat(['text', 'image', 'file']), recommendationScore: 0.86, useCases: ['chat', 'coding'] },
  { id: 'openai/text-embedding-3-large', name: 'text-embedding-3-large', contextLength: 8191, promptPricePerToken: perMillion(0.13), completionPricePerToken: 0, capabilities: embedding, recommendationScore: 0.9, useCases: ['embeddings'] },
  { id: 'openai/text-embedding-3-small', name: 'text-embedding-3-small', contextLength: 8191, promptPricePerToken: perMillion(0.02), completionPricePerToken: 0, capabilities: embedding, recommendationScore: 0.8, useCases: ['embeddings'] },
  { id: 'openai/whisper-1', name: 'Whisper', contextLength: 0, promptPricePerToken: 0, completionPricePerToken: 0, capabilities: { ...chat(['audio'], false), chat: false, streaming: false }, recommendationScore: 0.7, useCases: ['transcription'] },
  { id: 'cohere/command-r-plus', name: 'Command R+', contextLength: 128000, promptPricePerToken: perMillion(2.5), completionPricePerToken: perMillion(10), capabilities: chat(['text']), recommendationScore: 0.8, useCases: ['chat', 'analysis'] },
  { id: 'cohere/command-r', name: 'Command R', contextLength: 128000, promptPricePerToken: perMillion(0.15), completionPricePerToken: perMillion(0.6), capabilities: chat(['text']), recommendationScore: 0.75, useCases: ['chat'] },
  { id: 'cohere/embed-v4.0', name: 'Embed v4', contextLength: 128000, promptPricePerToken: perMillion(0.12), completionPricePerToken: 0, capabilities: embedding, recommendationScore: 0.85, useCases: ['embeddings'] },
  { id: 'cohere/rerank-v3.5', name: 'Rerank 3.5', contextLength: 4096, promptPricePerToken: 0, completionPricePerToken: 0, capabilities: rerank, recommendationScore: 0.85, useCases: ['rerank'] },
  { id: 'anthropic/claude-sonnet-4', name: 'Claude Sonnet 4', contextLength: 200000, promptPricePerToken: perMillion(3), completionPricePerToken: perMillion(15), capabilities: chat(['text', 'image', 'file']), recommendationScore: 0.93, useCases: ['chat', 'coding', 'analysis', 'creative'] },
  { id: 'google/gemini-2.5-flash', name: 'Gemini 2.5 Flash', contextLength: 1048576, promptPricePerToken: perMillion(0.3), completionPricePerToken: perMillion(2.5), capabilities: chat(['text', 'image', 'audio', 'video', 'file']), recommendationScore: 0.88, useCases: ['chat', 'analysis'] },
  { id: 'meta-llama/llama-3.3-70b-instruct', name: 'Llama 3.3 70B Instruct', contextLength: 131072, promptPricePerToken: perMillion(0.13), completionPricePerToken: perMillion(0.4), capabilities: chat(['text']), recommendationScore: 0.75, useCases: ['chat', 'creative'] },
  { id: 'mistralai/mistral-small-3.1-24b-instruct', name: 'Mistral Small 3.1', contextLength: 131072, promptPricePerToken: perMillion(0.1), completionPricePerToken: perMillion(0.3), capabilities: chat(['text', 'image']), recommendationScore: 0.72, useCases: ['chat', 'coding'] },
];

export function bundledCatalogue(): Model[] {
  return seeds.map((s) => ({
    ...s,
    provider: s.id.split('/')[0],
    isActive: true,
    isFree: s.promptPricePerToken === 0 && s.completionPricePerToken === 0,
    lastSyncedAt: null,
  }));
}
