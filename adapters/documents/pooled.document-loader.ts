/**
 * The DocumentLoader the platform uses: files are parsed through HeavyWork (a worker thread, bounded in time,
 * memory and unpacked size), never on the caller's event loop. Images, audio and video go to the in-process
 * loader, whose work is a call to a vision or transcription model rather than parsing.
 */
import type { DetectedKind, DocumentKind, DocumentLoader, LoadedDocument, LoadInput } from '../../core/ports/document-loader';
import type { HeavyWork, WorkAttribution } from '../../core/ports/heavy-work';
import { DomainError, isDomainError } from '../../core/shared/errors';

const MODEL_BACKED = new Set<DocumentKind>(['image', 'audio', 'video']);

export class PooledDocumentLoader implements DocumentLoader {
  readonly id = 'pooled';

  constructor(
    private readonly work: HeavyWork,
    /** Detection, and the model-backed formats. */
    private readonly local: DocumentLoader,
  ) {}

  async detect(input: LoadInput): Promise<DetectedKind> {
    return this.local.detect(input);
  }

  missingModelFor(kind: DocumentKind): string | null {
    return this.local.missingModelFor?.(kind) ?? null;
  }

  async load(input: LoadInput, work?: WorkAttribution): Promise<LoadedDocument> {
    const { kind } = await this.local.detect(input);
    if (MODEL_BACKED.has(kind)) return this.local.load(input);
    try {
      return await this.work.run('document.extract', input, work);
    } catch (error) {
      throw namingTheFile(error, input.filename);
    }
  }
}

/** A broken time or memory bound names the file it stopped ("\"a.pdf\" could not be processed: it took ..."). */
function namingTheFile(error: unknown, filename: string): unknown {
  const details = isDomainError(error) ? (error.details as { limit?: string; reason?: string } | undefined) : undefined;
  if (!isDomainError(error) || !details?.limit || !details.reason) return error;
  return new DomainError(error.code, `"${filename}" could not be processed: ${details.reason}`, { filename, limit: details.limit });
}
