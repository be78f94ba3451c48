/**
 * Optional capabilities used by document loaders. When an adapter is absent the loader fails the document
 * with a specific reason instead of dropping it.
 */
export interface Transcriber {
  readonly model: string;
  transcribe(audio: Buffer, options: { mimeType: string; filename: string }): Promise<{ text: string; durationSeconds?: number }>;
}
export const TRANSCRIBER = Symbol.for('Transcriber');

export interface ImageDescriber {
  readonly model: string;
  /** Caption plus any text read from the image (OCR). */
  describe(image: Buffer, options: { mimeType: string }): Promise<{ caption: string; text: string }>;
}
export const IMAGE_DESCRIBER = Symbol.for('ImageDescriber');

export interface SpeechSynthesizer {
  readonly model: string;
  synthesize(text: string, options: { voice: string; speed?: number }): Promise<{ audio: Buffer; mimeType: string }>;
}
export const SPEECH_SYNTHESIZER = Symbol.for('SpeechSynthesizer');
