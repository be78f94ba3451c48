/**
 * Images, audio and video have no text of their own: an optional ImageDescriber (caption + OCR) or
 * Transcriber provides it. Without one the document fails with NOT_CONFIGURED instead of being dropped.
 */
import { imageSize } from 'image-size';

import type { ImageDescriber, Transcriber } from '../../core/ports/media-understanding';
import { DomainError, isDomainError } from '../../core/shared/errors';
import type { ExtractedContent, FormatLoadContext, FormatLoader } from './format-loader';

export function imageLoader(describer: ImageDescriber | undefined): FormatLoader {
  return async (context: FormatLoadContext): Promise<ExtractedContent> => {
    if (!describer) {
      throw new DomainError('NOT_CONFIGURED', 'Image text extraction needs a vision-capable model; none is configured', {
        filename: context.filename,
      });
    }
    const size = readImageSize(context);
    const { caption, text } = await upstream('Image description', () => describer.describe(context.bytes, { mimeType: context.mimeType }));
    const description = caption.trim();
    return {
      text: [description, text.trim()].filter(Boolean).join('\n\n'),
      images: [{ ref: context.filename, mimeType: context.mimeType, ...(description ? { description } : {}) }],
      metadata: { ...size, describerModel: describer.model },
    };
  };
}

export function mediaLoader(transcriber: Transcriber | undefined, kind: 'audio' | 'video'): FormatLoader {
  const noun = kind === 'audio' ? 'Audio' : 'Video';
  return async (context: FormatLoadContext): Promise<ExtractedContent> => {
    if (!transcriber) {
      throw new DomainError('NOT_CONFIGURED', `${noun} transcription needs a transcription model; none is configured`, {
        filename: context.filename,
      });
    }
    const result = await upstream(`${noun} transcription`, () =>
      transcriber.transcribe(context.bytes, { mimeType: context.mimeType, filename: context.filename }),
    );
    return {
      text: result.text,
      metadata: {
        transcriberModel: transcriber.model,
        ...(result.durationSeconds !== undefined ? { durationSeconds: result.durationSeconds } : {}),
      },
    };
  };
}

function readImageSize(context: FormatLoadContext): { width: number; height: number; imageFormat?: string } {
  try {
    const { width, height, type } = imageSize(context.bytes);
    return { width, height, ...(type ? { imageFormat: type } : {}) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new DomainError('VALIDATION', `"${context.filename}" could not be read as an image: ${reason}`, {
      filename: context.filename,
    });
  }
}

/** Provider failures become UPSTREAM_FAILED so the pipeline can tell them from bad files. */
async function upstream<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (isDomainError(error)) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new DomainError('UPSTREAM_FAILED', `${what} failed: ${reason}`);
  }
}
