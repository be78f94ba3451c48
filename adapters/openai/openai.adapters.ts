/**
 * OpenAI, or any OpenAI-compatible endpoint (OPENAI_BASE_URL), for every capability it offers: chat,
 * embeddings, vision (image descriptions), transcription and speech. Each is picked when OPENAI_API_KEY is set.
 */
import type { ImageDescriber, SpeechSynthesizer, Transcriber } from '../../core/ports/media-understanding';
import { type AdapterDefinition, defineAdapter, setting, type Settings } from '../kit/adapter-definition';
import type { ChatProviderDefinition, EmbeddingsProviderDefinition } from '../kit/port-shapes';

const settings = {
  OPENAI_API_KEY: { type: 'string', description: 'OpenAI key (or the key of an OpenAI-compatible endpoint)' },
  OPENAI_BASE_URL: { type: 'string', format: 'uri', description: 'An OpenAI-compatible endpoint (e.g. http://localhost:11434/v1)' },
  OPENAI_MAX_RETRIES: { type: 'integer', minimum: 0, maximum: 10, default: 2, description: 'Retries of failed OpenAI calls' },
};
const keyed = { settings, requires: ['OPENAI_API_KEY'], selectedWhen: ['OPENAI_API_KEY'] } as const;
const connection = (s: Settings) => ({
  apiKey: setting.requiredString(s, 'OPENAI_API_KEY'),
  baseURL: setting.string(s, 'OPENAI_BASE_URL'),
  maxRetries: setting.number(s, 'OPENAI_MAX_RETRIES') ?? 2,
});

/** Embeddings model and size of new knowledge bases with OpenAI. */
export const OPENAI_EMBEDDING = { model: 'text-embedding-3-large', dimensions: 3072 };

export const openAiChatProvider: ChatProviderDefinition = {
  id: 'openai',
  description: 'OpenAI chat completions, or every model of an OpenAI-compatible endpoint',
  ...keyed,
  modelPrefixes: ['openai/'],
  needs: 'an OpenAI key (OPENAI_API_KEY)',
  catchAll: { needs: 'an OpenAI-compatible endpoint serving it (OPENAI_API_KEY with OPENAI_BASE_URL)' },
  async create(s) {
    const { OpenAiChatModel } = await import('./openai.chat-model');
    return new OpenAiChatModel(connection(s));
  },
};

export const openAiEmbeddings: EmbeddingsProviderDefinition = {
  id: 'openai',
  description: `OpenAI ${OPENAI_EMBEDDING.model}`,
  ...keyed,
  dimensions: OPENAI_EMBEDDING.dimensions,
  async create(s) {
    const { OpenAiEmbedder } = await import('./openai.embedder');
    return new OpenAiEmbedder({ ...connection(s), model: OPENAI_EMBEDDING.model });
  },
};

export const openAiVision: AdapterDefinition<ImageDescriber | null> = defineAdapter<ImageDescriber | null>({
  id: 'openai',
  description: 'OpenAI vision: descriptions of uploaded images',
  ...keyed,
  async create(s) {
    const { OpenAiImageDescriber } = await import('./openai.image-describer');
    return new OpenAiImageDescriber(connection(s));
  },
});

export const openAiTranscription: AdapterDefinition<Transcriber | null> = defineAdapter<Transcriber | null>({
  id: 'openai',
  description: 'OpenAI transcription of audio and video',
  ...keyed,
  async create(s) {
    const { OpenAiTranscriber } = await import('./openai.transcriber');
    return new OpenAiTranscriber(connection(s));
  },
});

export const openAiSpeech: AdapterDefinition<SpeechSynthesizer | null> = defineAdapter<SpeechSynthesizer | null>({
  id: 'openai',
  description: 'OpenAI text-to-speech for voice answers',
  ...keyed,
  async create(s) {
    const { OpenAiSpeechSynthesizer } = await import('./openai.speech-synthesizer');
    return new OpenAiSpeechSynthesizer(connection(s));
  },
});
