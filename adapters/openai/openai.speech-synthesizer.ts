import type { SpeechSynthesizer } from '../../core/ports/media-understanding';
import {
  catalogueModelId,
  connect,
  type OpenAiConnection,
  type OpenAiConnectionOptions,
  openAiOptionsSchema,
  providerModelName,
} from './openai-connection';
import { mapOpenAiError } from './openai-errors';

const FORMATS = { mp3: 'audio/mpeg', opus: 'audio/ogg', aac: 'audio/aac', flac: 'audio/flac', wav: 'audio/wav', pcm: 'audio/pcm' } as const;
type AudioFormat = keyof typeof FORMATS;

export interface OpenAiSpeechSynthesizerOptions extends OpenAiConnectionOptions {
  /** Text-to-speech model, bare or in provider/name form. Default `gpt-4o-mini-tts`. */
  model?: string;
  /** Audio container. Default `mp3`. */
  format?: AudioFormat;
}

export const openAiSpeechSynthesizerOptionsSchema = openAiOptionsSchema({
  model: { type: 'string', minLength: 1, default: 'gpt-4o-mini-tts' },
  format: { enum: Object.keys(FORMATS), default: 'mp3' },
});

/** The API reads at most 4096 characters per request. */
const MAX_INPUT = 4096;

/** Text to speech through `POST /audio/speech`. */
export class OpenAiSpeechSynthesizer implements SpeechSynthesizer {
  readonly id = 'openai';
  readonly model: string;
  private readonly connection: OpenAiConnection;
  private readonly format: AudioFormat;

  constructor(options: OpenAiSpeechSynthesizerOptions) {
    this.connection = connect(options);
    this.model = catalogueModelId(this.connection, options.model ?? 'gpt-4o-mini-tts');
    this.format = options.format ?? 'mp3';
  }

  async synthesize(text: string, options: { voice: string; speed?: number }): Promise<{ audio: Buffer; mimeType: string }> {
    try {
      const response = await this.connection.client.audio.speech.create({
        model: providerModelName(this.connection, this.model),
        voice: options.voice,
        input: text.slice(0, MAX_INPUT),
        response_format: this.format,
        ...(options.speed !== undefined ? { speed: Math.min(4, Math.max(0.25, options.speed)) } : {}),
      });
      return { audio: Buffer.from(await response.arrayBuffer()), mimeType: FORMATS[this.format] };
    } catch (error) {
      throw mapOpenAiError(error, this.connection.provider);
    }
  }
}
