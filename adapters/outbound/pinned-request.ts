import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import type { SecureContext } from 'node:tls';
import zlib from 'node:zlib';

import { DomainError } from '../../core/shared/errors';

/** Where one hop connects: the address that was validated, never a name. */
export interface PinnedTarget {
  address: string;
  family: 4 | 6;
  port: number;
}

export interface PinnedExchange {
  url: URL;
  target: PinnedTarget;
  method: string;
  headers: Record<string, string>;
  body?: Buffer;
  signal: AbortSignal;
  /** TLS context with the trusted CA certificates for HTTPS (default: Node's roots). */
  secureContext?: SecureContext;
}

/**
 * Connects to `target.address` (an IP literal, so node:net performs no DNS lookup) while the Host
 * header and the TLS servername (SNI, and the name the certificate is checked against) stay those of
 * the URL. A lookup function is still passed and refuses any name other than the pinned address, so a
 * change in node's connect path can never fall back to a fresh resolution.
 */
export function sendPinned(exchange: PinnedExchange): Promise<http.IncomingMessage> {
  const { url, target, method, headers, body, signal, secureContext } = exchange;
  const isHttps = url.protocol === 'https:';
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const servername = isHttps && isIP(hostname) === 0 ? hostname.replace(/\.$/, '') : undefined;
  const pinnedLookup = ((name: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (name !== target.address) {
      callback(new Error(`refused DNS lookup of ${name} for a pinned connection`));
    } else if (options.all) {
      callback(null, [{ address: target.address, family: target.family }]);
    } else {
      callback(null, target.address, target.family);
    }
  }) as unknown as LookupFunction;

  const options: https.RequestOptions = {
    host: target.address,
    family: target.family,
    port: target.port,
    method,
    path: `${url.pathname}${url.search}`,
    headers: { ...headers, host: url.host, ...(body ? { 'content-length': String(body.length) } : {}) },
    agent: false,
    lookup: pinnedLookup,
    signal,
    ...(isHttps ? { servername, ...(secureContext ? { secureContext } : {}) } : {}),
  };

  return new Promise((resolve, reject) => {
    let req: http.ClientRequest;
    try {
      req = (isHttps ? https : http).request(options);
    } catch (error) {
      reject(new DomainError('VALIDATION', `invalid outbound request: ${(error as Error).message}`));
      return;
    }
    req.once('response', resolve);
    req.once('error', reject);
    req.end(body);
  });
}

function decoderFor(encoding: string | undefined): zlib.Gunzip | zlib.BrotliDecompress | null {
  switch ((encoding ?? '').trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'br':
      return zlib.createBrotliDecompress();
    default:
      return null;
  }
}

export interface BoundedBody {
  body: Buffer;
  /** True when a content-encoding was removed (the body is the decoded bytes). */
  decoded: boolean;
}

const tooLarge = (maxBytes: number) =>
  new DomainError('PAYLOAD_TOO_LARGE', `response body exceeds the limit of ${maxBytes} bytes`, { maxBytes });

/**
 * Reads the (decoded) body and stops as soon as it passes `maxBytes`, so neither a server that
 * streams forever nor a compression bomb can make the process hold more than the limit.
 */
export async function readBounded(res: http.IncomingMessage, maxBytes: number): Promise<BoundedBody> {
  const declared = Number(res.headers['content-length']);
  const decoder = decoderFor(res.headers['content-encoding']);
  if (!decoder && Number.isFinite(declared) && declared > maxBytes) {
    res.destroy();
    throw tooLarge(maxBytes);
  }
  const stream: Readable = decoder ? res.pipe(decoder) : res;
  if (decoder) res.once('error', (error) => decoder.destroy(error));
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of stream) {
      total += (chunk as Buffer).length;
      if (total > maxBytes) throw tooLarge(maxBytes);
      chunks.push(chunk as Buffer);
    }
  } finally {
    if (total > maxBytes || !res.complete) {
      res.destroy();
      decoder?.destroy();
    }
  }
  return { body: Buffer.concat(chunks, total), decoded: decoder !== null };
}

/** Discards a body we do not need (redirect responses) without reading it. */
export function discard(res: http.IncomingMessage): void {
  res.destroy();
}
