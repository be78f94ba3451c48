import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

export const WEBHOOK_RECEIVER_CA_FILE = join(__dirname, '../fixtures/tls/webhook-receiver.cert.pem');
const KEY_FILE = join(__dirname, '../fixtures/tls/webhook-receiver.key.pem');

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw bytes, as signed. */
  body: Buffer;
  /** What the receiver answered. */
  status: number;
}

/**
 * A local HTTPS webhook receiver (self-signed certificate for 127.0.0.1, see test/fixtures/tls). `answer(n,
 * request)` gives the status of the n-th request of a delivery (`X-Service-Delivery`); default 200.
 */
export class HttpsWebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  private server?: Server;
  private readonly seen = new Map<string, number>();

  constructor(private answer: (attempt: number, request: Omit<ReceivedWebhook, 'status'>) => number = () => 200) {}

  setAnswer(answer: (attempt: number, request: Omit<ReceivedWebhook, 'status'>) => number) {
    this.answer = answer;
  }

  async start(): Promise<{ url: string; port: number }> {
    this.server = createServer({ cert: readFileSync(WEBHOOK_RECEIVER_CA_FILE), key: readFileSync(KEY_FILE) }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const request = { path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks) };
        const id = String(req.headers['x-service-delivery'] ?? '');
        const n = (this.seen.get(id) ?? 0) + 1;
        this.seen.set(id, n);
        const status = this.answer(n, request);
        this.received.push({ ...request, status });
        res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'nope');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    return { url: `https://127.0.0.1:${port}`, port };
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server?.closeAllConnections();
  }
}
