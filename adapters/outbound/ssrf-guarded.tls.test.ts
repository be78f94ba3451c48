import { readFileSync } from 'node:fs';

import { HttpsWebhookReceiver, WEBHOOK_RECEIVER_CA_FILE } from '../../test/fakes/https-webhook-receiver';
import { SsrfGuardedFetcher } from './ssrf-guarded.fetcher';

/** HTTPS targets are verified against the trusted roots; `extraCa` adds roots instead of replacing them. */
describe('SsrfGuardedFetcher over HTTPS', () => {
  const receiver = new HttpsWebhookReceiver(() => 202);
  let url: string;
  let allow: string[];
  beforeAll(async () => {
    const started = await receiver.start();
    url = `${started.url}/in`;
    allow = [`127.0.0.1:${started.port}`];
  });
  afterAll(() => receiver.close());

  it('refuses a self-signed certificate it was not told to trust', async () => {
    await expect(new SsrfGuardedFetcher({ allow }).fetch({ url, method: 'POST', body: '{}' })).rejects.toMatchObject({
      code: 'UPSTREAM_FAILED',
    });
    expect(receiver.received).toHaveLength(0);
  });

  it('reaches it once its certificate is an extra trusted root', async () => {
    const fetcher = new SsrfGuardedFetcher({ allow, extraCa: [readFileSync(WEBHOOK_RECEIVER_CA_FILE, 'utf8')] });
    const res = await fetcher.fetch({ url, method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(202);
    expect(receiver.received.map((r) => r.body.toString())).toEqual(['{"a":1}']);
  });

  it('still refuses the loopback address when it is not an allowed endpoint', async () => {
    const fetcher = new SsrfGuardedFetcher({ extraCa: [readFileSync(WEBHOOK_RECEIVER_CA_FILE, 'utf8')] });
    await expect(fetcher.fetch({ url })).rejects.toMatchObject({ code: 'UNSUPPORTED_URL' });
  });
});
