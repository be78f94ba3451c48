/**
 * Job webhooks end to end (docs/contracts.md "Jobs", spec 5.3 and 6): a document upload or a source sync with a
 * webhookUrl gets its terminal event POSTed to a local HTTPS receiver (self-signed certificate, trusted only in
 * this test through OUTBOUND_CA_FILE; its loopback port allowed through OUTBOUND_ALLOW), signed over the raw body,
 * retried on non-2xx up to 3 attempts, every delivery recorded.
 */
import { verifyWebhookSignature } from '../../core/webhooks/webhook-signature';
import { FakeHttpServer } from '../fakes/fake-http-server';
import { HttpsWebhookReceiver, WEBHOOK_RECEIVER_CA_FILE } from '../fakes/https-webhook-receiver';
import { createKb } from '../knowledge/knowledge-support';
import { waitFor } from '../public-chat/public-support';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { registerUser, type TestUser } from '../support/users';

const SECRET = 'test-webhook-secret-0123456789'; // WEBHOOK_SIGNING_SECRET of startTestPlatform
const receiver = new HttpsWebhookReceiver();
const site = new FakeHttpServer((req) =>
  req.path === '/page'
    ? {
        headers: { 'content-type': 'text/html' },
        body: '<html><head><title>Page</title></head><body><main><p>Signed hooks arrive.</p></main></body></html>',
      }
    : undefined,
);
let p: TestPlatform;
let owner: TestUser;
let kbId: string;
let hookUrl: string;
let siteUrl: string;

beforeAll(async () => {
  const { url, port } = await receiver.start();
  hookUrl = `${url}/hooks/jobs`;
  siteUrl = await site.start();
  p = await startTestPlatform({
    OUTBOUND_ALLOW: `127.0.0.1:${port},${new URL(siteUrl).host}`,
    OUTBOUND_CA_FILE: WEBHOOK_RECEIVER_CA_FILE,
    WEBHOOK_RETRY_BACKOFF_MS: '20',
  });
  owner = await registerUser(p.http, { label: 'hooks-owner' });
  kbId = (await createKb(p, owner.accessToken, { name: 'Hooks' })).id;
});
afterAll(async () => {
  await p?.close();
  await receiver.close();
  await site.close();
});

const auth = () => ({ token: owner.accessToken });

async function uploadWithHook(name: string, text: string, webhookUrl: string, via: 'field' | 'query' = 'field') {
  const form = new FormData();
  if (via === 'field') form.append('webhookUrl', webhookUrl);
  form.append('file', new Blob([Buffer.from(text)], { type: 'text/plain' }), name);
  const query = via === 'query' ? `?webhookUrl=${encodeURIComponent(webhookUrl)}` : '';
  const res = await fetch(`${p.gatewayUrl}/api/knowledge/kb/${kbId}/documents${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.accessToken}` },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as any };
}

const deliveries = (jobId: string) => p.http.get(`/api/jobs/${jobId}/webhook-deliveries`, auth());
const settledDeliveries = (jobId: string, count = 1) =>
  waitFor(async () => {
    const r = await deliveries(jobId);
    const list = r.body.deliveries as any[];
    return list.length >= count && list.every((d) => d.status !== 'pending') ? list : null;
  }, `deliveries of ${jobId}`);
const requestsOf = (jobId: string) => receiver.received.filter((r) => JSON.parse(r.body.toString('utf8')).jobId === jobId);

describe('job webhooks', () => {
  it('POSTs the signed terminal event of an upload, retrying after a failed attempt', async () => {
    receiver.setAnswer((attempt) => (attempt === 1 ? 503 : 200));
    const up = await uploadWithHook('hooked.txt', 'Webhooks tell the caller when the document is ready.', hookUrl);
    expect(up.status).toBe(201);
    const [delivery] = await settledDeliveries(up.body.jobId);
    expect(delivery).toMatchObject({ url: hookUrl, event: 'completed', status: 'delivered', attempts: 2, lastStatusCode: 200 });

    const requests = requestsOf(up.body.jobId);
    expect(requests.map((r) => r.status)).toEqual([503, 200]);
    const job = (await p.http.get(`/api/jobs/${up.body.jobId}`, auth())).body;
    for (const r of requests) {
      expect(r.path).toBe('/hooks/jobs');
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['x-service-event']).toBe('completed');
      expect(verifyWebhookSignature(SECRET, r.body, r.headers['x-service-signature'] as string)).toBe(true);
      expect(verifyWebhookSignature('another-secret-0123456789', r.body, r.headers['x-service-signature'] as string)).toBe(false);
      expect(JSON.parse(r.body.toString('utf8'))).toEqual(job);
    }
    expect(requests[0].body.equals(requests[1].body)).toBe(true);
    expect(requests[0].headers['x-service-delivery']).toBe(delivery.id);
  });

  it('gives up after 3 attempts; a retry of the failed document keeps its webhook', async () => {
    receiver.setAnswer(() => 500);
    const up = await uploadWithHook('empty.txt', '  \n ', hookUrl, 'query');
    expect(up.status).toBe(201);
    const [delivery] = await settledDeliveries(up.body.jobId);
    expect(delivery).toMatchObject({ event: 'failed', status: 'failed', attempts: 3, lastStatusCode: 500, deliveredAt: null });
    expect(requestsOf(up.body.jobId).map((r) => r.headers['x-service-event'])).toEqual(['failed', 'failed', 'failed']);

    receiver.setAnswer(() => 204);
    const retry = await p.http.post(`/api/knowledge/kb/${kbId}/documents/${up.body.document.id}/retry`, undefined, auth());
    expect(retry.status).toBe(200);
    const [again] = await settledDeliveries(retry.body.jobId);
    expect(again).toMatchObject({ url: hookUrl, event: 'failed', status: 'delivered', attempts: 1 });
  });

  it('sends the terminal event of a source sync; the sync endpoint takes a webhookUrl too', async () => {
    receiver.setAnswer(() => 200);
    const added = await p.http.post(`/api/knowledge/kb/${kbId}/sources/url`, { url: `${siteUrl}/page`, webhookUrl: hookUrl }, auth());
    expect(added.status).toBe(201);
    const [first] = await settledDeliveries(added.body.jobId);
    expect(first).toMatchObject({ event: 'completed', status: 'delivered' });
    const body = JSON.parse(requestsOf(added.body.jobId)[0].body.toString('utf8'));
    expect(body).toMatchObject({ kind: 'source_sync', status: 'completed', result: { status: 'healthy' } });

    const synced = await p.http.post(
      `/api/knowledge/kb/${kbId}/sources/${added.body.source.id}/sync`,
      { webhookUrl: `${hookUrl}?sync=2` },
      auth(),
    );
    expect(synced.status).toBe(200);
    const [second] = await settledDeliveries(synced.body.jobId);
    expect(second).toMatchObject({ url: `${hookUrl}?sync=2`, status: 'delivered' });
  });

  it('refuses a webhookUrl that is not https (400) and records a refused internal address as failed', async () => {
    for (const r of [
      await uploadWithHook('plain.txt', 'text', 'http://hooks.example/in'),
      await uploadWithHook('plain.txt', 'text', 'http://hooks.example/in', 'query'),
      await p.http.post(`/api/knowledge/kb/${kbId}/sources/url`, { url: `${siteUrl}/page`, webhookUrl: 'ftp://hooks.example' }, auth()),
    ]) {
      expect({ status: r.status, error: r.body.error }).toEqual({ status: 400, error: 'Validation Error' });
    }
    const up = await uploadWithHook('internal.txt', 'An internal address is never called.', 'https://127.0.0.1:9/hooks');
    expect(up.status).toBe(201);
    const [delivery] = await settledDeliveries(up.body.jobId);
    expect(delivery).toMatchObject({
      status: 'failed',
      attempts: 1,
      lastStatusCode: null,
      lastError: expect.stringMatching(/address is not allowed/),
    });
  });
});
