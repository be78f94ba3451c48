/**
 * The DocumentLoader for every supported upload extension. `detect` checks extension, declared MIME type
 * and content (file-type, see file-signature.ts); `load` runs the same check, then the format's extractor, and
 * returns whitespace-normalised text (the same normalisation the chunker applies, so chunk offsets refer
 * to this text).
 */
import { normalizeWhitespace } from '../../core/knowledge/chunker';
import type { DocumentKind, DocumentLoader, LoadedDocument, LoadInput } from '../../core/ports/document-loader';
import type { ImageDescriber, Transcriber } from '../../core/ports/media-understanding';
import { DomainError } from '../../core/shared/errors';
import { loadCsv } from './csv.loader';
import { loadDoc } from './doc.loader';
import { loadDocx } from './docx.loader';
import { detectFile } from './file-signature';
import type { FileFormat } from './file-types';
import type { FormatLoader } from './format-loader';
import { loadHtml } from './html.loader';
import { imageLoader, mediaLoader } from './media.loader';
import { loadPdf } from './pdf.loader';
import { loadMarkdown, loadPlainText } from './text.loader';
import { checkPdfUnpackedSize, checkZipUnpackedSize, type UnpackLimits } from './unpack-limits';

/** Bounds of one extraction: unpacked size of compressed parts, and length of the text that comes out. */
export interface ExtractionLimits extends UnpackLimits {
  maxTextChars: number;
}

export const DEFAULT_EXTRACTION_LIMITS: ExtractionLimits = {
  maxPartBytes: 16 * 1024 * 1024,
  maxTotalBytes: 64 * 1024 * 1024,
  maxTextChars: 16 * 1024 * 1024,
};

export interface MultiFormatDocumentLoaderOptions {
  /** Vision model for captions and OCR of uploaded images; without it images fail with NOT_CONFIGURED. */
  imageDescriber?: ImageDescriber;
  /** Speech-to-text model for audio and video; without it they fail with NOT_CONFIGURED. */
  transcriber?: Transcriber;
  /** Unpacked-size and output bounds (DEFAULT_EXTRACTION_LIMITS when absent). */
  limits?: ExtractionLimits;
}

const EMPTY_REASONS: Record<DocumentKind, string> = {
  pdf: 'the PDF has no text layer (scanned pages would need OCR)',
  docx: 'the document contains no text',
  doc: 'the document contains no text',
  text: 'the file contains no text',
  markdown: 'the file contains no text',
  csv: 'the file contains no values',
  html: 'the page has no readable content once scripts, navigation and boilerplate are removed',
  image: 'the image description came back empty',
  audio: 'the transcript is empty (no speech found)',
  video: 'the transcript is empty (no speech found)',
};

export class MultiFormatDocumentLoader implements DocumentLoader {
  readonly id = 'multi-format';
  private readonly loaders: Readonly<Record<FileFormat, FormatLoader>>;
  private readonly limits: ExtractionLimits;
  private readonly options: MultiFormatDocumentLoaderOptions;

  constructor(options: MultiFormatDocumentLoaderOptions = {}) {
    this.options = options;
    const image = imageLoader(options.imageDescriber);
    const audio = mediaLoader(options.transcriber, 'audio');
    const video = mediaLoader(options.transcriber, 'video');
    this.limits = options.limits ?? DEFAULT_EXTRACTION_LIMITS;
    this.loaders = {
      pdf: loadPdf,
      docx: loadDocx,
      doc: loadDoc,
      txt: loadPlainText,
      md: loadMarkdown,
      csv: loadCsv,
      html: loadHtml,
      png: image,
      jpeg: image,
      gif: image,
      webp: image,
      mp3: audio,
      wav: audio,
      m4a: audio,
      ogg: audio,
      mp4: video,
      webm: video,
      mov: video,
    };
  }

  async detect(input: LoadInput): Promise<{ mimeType: string; kind: DocumentKind }> {
    const { mimeType, kind } = await detectFile(input);
    return { mimeType, kind };
  }

  missingModelFor(kind: DocumentKind): string | null {
    if (kind === 'image' && !this.options.imageDescriber) {
      return 'Images cannot be indexed on this platform: text extraction from images needs a vision-capable model, and none is configured';
    }
    if ((kind === 'audio' || kind === 'video') && !this.options.transcriber) {
      return `${kind === 'audio' ? 'Audio' : 'Video'} files cannot be indexed on this platform: they need a transcription model, and none is configured`;
    }
    return null;
  }

  async load(input: LoadInput): Promise<LoadedDocument> {
    const detected = await detectFile(input);
    // bombs fail here, before a parser inflates a part whole
    if (detected.format === 'docx') checkZipUnpackedSize(input.bytes, input.filename, this.limits);
    if (detected.format === 'pdf') checkPdfUnpackedSize(input.bytes, input.filename, this.limits);
    const content = await this.loaders[detected.format]({
      bytes: input.bytes,
      filename: input.filename,
      format: detected.format,
      mimeType: detected.mimeType,
    });
    if (content.text.length > this.limits.maxTextChars * 2) throw this.textTooLong(input.filename);
    const text = normalizeWhitespace(content.text);
    if (text.length > this.limits.maxTextChars) throw this.textTooLong(input.filename);
    if (!text) {
      throw new DomainError('VALIDATION', `No extractable text in "${input.filename}": ${EMPTY_REASONS[detected.kind]}`, {
        filename: input.filename,
        kind: detected.kind,
      });
    }
    return {
      text,
      mimeType: detected.mimeType,
      ...(content.title ? { title: content.title } : {}),
      images: content.images ?? [],
      metadata: {
        ...content.metadata,
        format: detected.format,
        extension: detected.extension,
        sizeBytes: input.bytes.length,
      },
    };
  }

  private textTooLong(filename: string): DomainError {
    const max = this.limits.maxTextChars;
    return new DomainError('PAYLOAD_TOO_LARGE', `The text extracted from "${filename}" is longer than the ${max} characters allowed`, {
      filename,
      limit: max,
    });
  }
}
