import { toFile } from 'openai';

import type { Transcriber } from '../../core/ports/media-understanding';
import {
  catalogueModelId,
  connect,
  type OpenAiConnection,
  type OpenAiConnectionOptions,
  openAiOptionsSchema,
  providerModelName,
} from './openai-connection';
import { mapOpenAiError } from './openai-errors';

export interface OpenAiTranscriberOptions extends OpenAiConnectionOptions {
  /** Transcription model, bare or in provider/name form. Default `whisper-1`. */
  model?: string;
  /** Spoken language hint (ISO-639-1), improves accuracy and latency. */
  language?: string;
}

export const openAiTranscriberOptionsSchema = openAiOptionsSchema({
  model: { type: 'string', minLength: 1, default: 'whisper-1' },
  language: { type: 'string', pattern: '^[a-z]{2}$' },
});

/** Whisper-style transcription through `POST /audio/transcriptions`. */
export class OpenAiTranscriber implements Transcriber {
  readonly id = 'openai';
  readonly model: string;
  private readonly connection: OpenAiConnection;
  private readonly language?: string;

  constructor(options: OpenAiTranscriberOptions) {
    this.connection = connect(options);
    this.model = catalogueModelId(this.connection, options.model ?? 'whisper-1');
    this.language = options.language;
  }

  async transcribe(audio: Buffer, options: { mimeType: string; filename: string }): Promise<{ text: string; durationSeconds?: number }> {
    const name = providerModelName(this.connection, this.model);
    try {
      const file = await toFile(audio, options.filename, { type: options.mimeType });
      // verbose_json (with the duration) is a whisper feature; the gpt-4o transcribe models answer json only
      const verbose = name.startsWith('whisper');
      const response = (await this.connection.client.audio.transcriptions.create({
        file,
        model: name,
        response_format: verbose ? 'verbose_json' : 'json',
        ...(this.language ? { language: this.language } : {}),
      })) as { text?: unknown; duration?: unknown };
      if (typeof response?.text !== 'string') throw new Error('transcription response has no text');
      const duration = Number(response.duration);
      return { text: response.text.trim(), ...(Number.isFinite(duration) ? { durationSeconds: duration } : {}) };
    } catch (error) {
      throw mapOpenAiError(error, this.connection.provider);
    }
  }
}
