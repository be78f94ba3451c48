import type { IncomingMessage } from 'node:http';

import type { ForwardBody } from './upstream-forwarder';

/** Reads a body whose Content-Length is known and small; null when the client left before sending it all. */
function readAll(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', () => resolve(null));
    req.once('close', () => {
      if (!req.complete) resolve(null);
    });
  });
}

/**
 * How the gateway forwards a request body so that the backend can check it against the signature: a body of
 * known length up to `bufferLimit` is read first (its digest goes in the signed headers), anything larger or
 * chunked is streamed with its digest in a signed trailer. No body: the empty body's digest. Only a body read
 * first is a promise: the others are answered at once, with no promise on the path of every GET.
 */
export function forwardBodyFor(
  req: IncomingMessage,
  bufferLimit: number,
  trailer: (digestHex: string) => Record<string, string>,
): ForwardBody | Promise<ForwardBody | null> {
  const te = req.headers['transfer-encoding'];
  const cl = req.headers['content-length'];
  if (te === undefined && (cl === undefined || cl === '0')) return { kind: 'none' };
  if (te === undefined && Number(cl) <= bufferLimit) return readAll(req).then((data) => (data ? { kind: 'buffer', data } : null));
  return { kind: 'stream', trailer };
}
