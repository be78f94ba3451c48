import busboy from 'busboy';
import type { Request } from 'express';

import { DomainError } from '../../../core/shared/errors';

export interface ReceivedFile {
  filename: string;
  mimeType: string;
  bytes: Buffer;
  /** Text fields of the form (at most 20, each value at most 4 KiB), e.g. `webhookUrl`. */
  fields: Record<string, string>;
}

/**
 * Reads the one file part `field` of a multipart/form-data request into memory, refusing more than
 * `maxBytes` (413) as soon as the limit is crossed. Text fields are collected; a missing part, or a second file
 * part (whatever its name), is a 400 rather than a file dropped silently.
 */
export function readMultipartFile(req: Request, options: { maxBytes: number; field?: string }): Promise<ReceivedFile> {
  const field = options.field ?? 'file';
  const type = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data/i.test(type)) {
    return Promise.reject(new DomainError('VALIDATION', `Send the file as multipart/form-data in a part named "${field}"`));
  }
  const declared = Number(req.headers['content-length']);
  return new Promise<ReceivedFile>((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { fileSize: options.maxBytes, files: 1, fields: 20, parts: 30, fieldSize: 4096 } });
    } catch (error) {
      reject(new DomainError('VALIDATION', `Malformed multipart request: ${(error as Error).message}`));
      return;
    }
    let found: Omit<ReceivedFile, 'fields'> | null = null;
    const fields: Record<string, string> = {};
    let failed: DomainError | null = null;
    const fail = (e: DomainError) => {
      if (failed) return;
      failed = e;
      req.unpipe(parser);
      req.resume(); // drain the rest so the connection can answer
      reject(e);
    };
    parser.on('file', (name, stream, info) => {
      if (name !== field || found) {
        stream.resume();
        return;
      }
      const parts: Buffer[] = [];
      // A truncated form errors the file stream too: unhandled, that error would crash the process.
      stream.on('error', (error: Error) => fail(new DomainError('VALIDATION', `Malformed multipart request: ${error.message}`)));
      stream.on('data', (d: Buffer) => parts.push(d));
      stream.on('limit', () => fail(new DomainError('PAYLOAD_TOO_LARGE', `The file is larger than the ${options.maxBytes} bytes allowed`)));
      stream.on('end', () => {
        const filename = info.filename ?? '';
        // NUL cannot be stored in Postgres text: a clear 400, not a failed insert.
        if (filename.includes('\u0000') || (info.mimeType ?? '').includes('\u0000')) {
          return fail(new DomainError('VALIDATION', 'The file name must not contain NUL characters'));
        }
        if (!failed) found = { filename, mimeType: info.mimeType ?? '', bytes: Buffer.concat(parts) };
      });
    });
    // busboy stops at `files: 1` and reports the extra part here.
    parser.on('filesLimit', () => fail(new DomainError('VALIDATION', `Send one file per request: the form has more than one file part`)));
    parser.on('field', (name: string, value: string) => {
      if (!(name in fields)) fields[name] = value;
    });
    parser.on('error', (error: Error) => fail(new DomainError('VALIDATION', `Malformed multipart request: ${error.message}`)));
    parser.on('close', () => {
      if (failed) return;
      if (!found) reject(new DomainError('VALIDATION', `The multipart request has no file part named "${field}"`));
      else resolve({ ...found, fields });
    });
    if (Number.isFinite(declared) && declared > options.maxBytes + 64 * 1024) {
      fail(new DomainError('PAYLOAD_TOO_LARGE', `The request is larger than the ${options.maxBytes} bytes allowed`));
      return;
    }
    // The signed-request check has already read (and verified) the body; otherwise stream it.
    const raw: unknown = req.res?.locals.rawBody;
    if (Buffer.isBuffer(raw)) parser.end(raw);
    else req.pipe(parser);
  });
}
