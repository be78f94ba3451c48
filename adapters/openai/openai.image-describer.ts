import type { ImageDescriber } from '../../core/ports/media-understanding';
import {
  catalogueModelId,
  connect,
  type OpenAiConnection,
  type OpenAiConnectionOptions,
  openAiOptionsSchema,
  providerModelName,
} from './openai-connection';
import { mapOpenAiError } from './openai-errors';

export interface OpenAiImageDescriberOptions extends OpenAiConnectionOptions {
  /** A vision-capable chat model, bare or in provider/name form. Default `gpt-4o-mini`. */
  model?: string;
  /** Output budget for the description. Default 1000 tokens. */
  maxTokens?: number;
}

export const openAiImageDescriberOptionsSchema = openAiOptionsSchema({
  model: { type: 'string', minLength: 1, default: 'gpt-4o-mini' },
  maxTokens: { type: 'integer', minimum: 16, default: 1000 },
});

export const IMAGE_PROMPT =
  'You describe images for a search index. Reply with one JSON object and nothing else: ' +
  '{"caption": "<one or two sentences describing the image>", "text": "<all text visible in the image, verbatim, ' +
  'lines separated by \\n; empty string if none>"}';

/** Reads `{caption, text}` from the reply; a reply that is not JSON becomes the caption. */
export function parseDescription(reply: string): { caption: string; text: string } {
  const start = reply.indexOf('{');
  const end = reply.lastIndexOf('}');
  if (start >= 0 && end > start) {
    try {
      const parsed = JSON.parse(reply.slice(start, end + 1)) as { caption?: unknown; text?: unknown };
      if (typeof parsed.caption === 'string' || typeof parsed.text === 'string') {
        return {
          caption: typeof parsed.caption === 'string' ? parsed.caption.trim() : '',
          text: typeof parsed.text === 'string' ? parsed.text.trim() : '',
        };
      }
    } catch {
      // fall through: not JSON after all
    }
  }
  return { caption: reply.trim(), text: '' };
}

/** Caption plus visible text (OCR) through a vision chat completion. */
export class OpenAiImageDescriber implements ImageDescriber {
  readonly id = 'openai';
  readonly model: string;
  private readonly connection: OpenAiConnection;
  private readonly maxTokens: number;

  constructor(options: OpenAiImageDescriberOptions) {
    this.connection = connect(options);
    this.model = catalogueModelId(this.connection, options.model ?? 'gpt-4o-mini');
    this.maxTokens = options.maxTokens ?? 1000;
  }

  async describe(image: Buffer, options: { mimeType: string }): Promise<{ caption: string; text: string }> {
    const maxTokensKey = this.connection.compatible ? 'max_tokens' : 'max_completion_tokens';
    try {
      const response = await this.connection.client.chat.completions.create({
        model: providerModelName(this.connection, this.model),
        [maxTokensKey]: this.maxTokens,
        messages: [
          { role: 'system', content: IMAGE_PROMPT },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Describe this image and transcribe any text in it.' },
              { type: 'image_url', image_url: { url: `data:${options.mimeType};base64,${image.toString('base64')}` } },
            ],
          },
        ],
      });
      return parseDescription(response.choices?.[0]?.message?.content ?? '');
    } catch (error) {
      throw mapOpenAiError(error, this.connection.provider);
    }
  }
}
