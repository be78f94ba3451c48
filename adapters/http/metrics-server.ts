import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * `/metrics` of a role without the api's listener (gateway, worker): process metrics plus the given series
 * (rate-limit refusals on a gateway, job outcomes and ingestion on a worker). Not behind the gateway: scraped
 * inside the deployment, like the api's own `/metrics`.
 */
export async function startMetricsServer(
  registries: Registry[],
  port: number,
  host: string,
): Promise<{ address: AddressInfo; close(): Promise<void> }> {
  const own = new Registry();
  collectDefaultMetrics({ register: own });
  const scraped = Registry.merge([own, ...registries]);
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end('{"error":"Not Found","message":"Only /metrics here","code":"NOT_FOUND"}');
      return;
    }
    scraped
      .metrics()
      .then((text) => res.writeHead(200, { 'content-type': scraped.contentType }).end(text))
      .catch(() => res.writeHead(500).end());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    address: server.address() as AddressInfo,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
