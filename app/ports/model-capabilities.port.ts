/**
 * Model providers per capability besides chat: embeddings, rerank, vision (image descriptions),
 * transcription and speech. A configured key picks its provider for every capability it offers; each
 * `*_PROVIDER` key overrides that choice (`none` turns an optional capability off).
 */
import { cohereEmbeddings, cohereRerank } from '../../adapters/cohere/cohere.adapters';
import { disabledAdapter } from '../../adapters/kit/disabled';
import { definePort } from '../../adapters/kit/port-registry';
import type { EmbeddingsProviderDefinition } from '../../adapters/kit/port-shapes';
import { localEmbeddings, localRerank } from '../../adapters/local-ai/local-ai.adapters';
import { openAiEmbeddings, openAiSpeech, openAiTranscription, openAiVision } from '../../adapters/openai/openai.adapters';
import { EMBEDDER, type Embedder } from '../../core/ports/embedder';
import {
  IMAGE_DESCRIBER,
  type ImageDescriber,
  SPEECH_SYNTHESIZER,
  type SpeechSynthesizer,
  TRANSCRIBER,
  type Transcriber,
} from '../../core/ports/media-understanding';
import { RERANKER, type Reranker } from '../../core/ports/reranker';
import { bindDerived, type PlatformPort, singleAdapterPort } from './platform-port';

/** The embedder with the size of new knowledge bases' embeddings. */
export interface Embeddings {
  embedder: Embedder;
  dimensions: number;
}
export const EMBEDDINGS = Symbol.for('Embeddings');

const embeddings = definePort<Embedder, EmbeddingsProviderDefinition>({
  key: 'EMBEDDINGS_PROVIDER',
  description: 'Embeddings provider',
  token: EMBEDDINGS,
  adapters: [openAiEmbeddings, cohereEmbeddings, localEmbeddings],
});

export const embeddingsPort: PlatformPort = {
  registry: embeddings,
  bind(container, settings, context) {
    container
      .bind<Embeddings>(EMBEDDINGS)
      .toDynamicValue(async () => {
        const { definition, instance } = await embeddings.createOne(settings, context);
        return { embedder: instance, dimensions: definition.dimensions };
      })
      .inSingletonScope();
    bindDerived<Embeddings, Embedder>(container, EMBEDDER, EMBEDDINGS, (e) => e.embedder);
  },
};

export const rerankPort = singleAdapterPort(
  definePort<Reranker | null>({
    key: 'RERANK_PROVIDER',
    description: 'Rerank provider',
    token: RERANKER,
    adapters: [cohereRerank, disabledAdapter<Reranker>('No rerank step'), localRerank],
  }),
  RERANKER,
);

export const visionPort = singleAdapterPort(
  definePort<ImageDescriber | null>({
    key: 'VISION_PROVIDER',
    description: 'Image descriptions of uploaded images',
    token: IMAGE_DESCRIBER,
    adapters: [openAiVision, disabledAdapter<ImageDescriber>('Images are not described (uploads of images fail with a reason)')],
  }),
  IMAGE_DESCRIBER,
);

export const transcriptionPort = singleAdapterPort(
  definePort<Transcriber | null>({
    key: 'TRANSCRIPTION_PROVIDER',
    description: 'Transcription of audio and video uploads',
    token: TRANSCRIBER,
    adapters: [openAiTranscription, disabledAdapter<Transcriber>('Audio and video are not transcribed')],
  }),
  TRANSCRIBER,
);

export const speechPort = singleAdapterPort(
  definePort<SpeechSynthesizer | null>({
    key: 'SPEECH_PROVIDER',
    description: 'Text-to-speech for voice answers',
    token: SPEECH_SYNTHESIZER,
    adapters: [openAiSpeech, disabledAdapter<SpeechSynthesizer>('No voice answers')],
  }),
  SPEECH_SYNTHESIZER,
);
