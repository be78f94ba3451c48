/**
 * Build webhooks (spec 5.3, 6): `deliver.webhookUrl` receives each phase the build enters, once and in phase order,
 * as the ProvisioningEvent, POST JSON signed over the raw body with WEBHOOK_SIGNING_SECRET, `X-Service-Event` its
 * status, retried on non-2xx; deliveries and their attempts are recorded at GET /api/jobs/:jobId/webhook-deliveries. The receiver is a local HTTPS server (self-signed certificate
 * trusted through OUTBOUND_CA_FILE, its port allowed through OUTBOUND_ALLOW) failing every first attempt.
 * This platform also has a bot-check secret: tokens are verified against a local verification endpoint.
 */
import { verifyWebhookSignature } from '../../core/webhooks/webhook-signature';
import { cookingChannel } from '../../plugins/sources/youtube/test-fixtures/channel';
import { FakeHttpServer } from '../fakes/fake-http-server';
import { HttpsWebhookReceiver, WEBHOOK_RECEIVER_CA_FILE } from '../fakes/https-webhook-receiver';
import { waitFor } from '../public-chat/public-support';
import { fromUrl, poll, type ProvisioningWorld, settled, startProvisioningWorld } from './provisioning-support';

const SECRET = 'test-webhook-secret-0123456789'; // WEBHOOK_SIGNING_SECRET of startTestPlatform
const receiver = new HttpsWebhookReceiver();
const siteverify = new FakeHttpServer((req) =>
  req.path === '/siteverify'
    ? { json: { success: new URLSearchParams(req.body.toString('utf8')).get('response') === 'good-token' } }
    : undefined,
);
let w: ProvisioningWorld;
let hookUrl: string;

beforeAll(async () => {
  const { url, port } = await receiver.start();
  hookUrl = `${url}/hooks/builds`;
  const verify = await siteverify.start();
  w = await startProvisioningWorld([cookingChannel('hooked', 4, 'UChooked0000000000000000')], {
    TURNSTILE_SECRET_KEY: 'turnstile-secret',
    TURNSTILE_VERIFY_URL: `${verify}/siteverify`,
    OUTBOUND_CA_FILE: WEBHOOK_RECEIVER_CA_FILE,
    WEBHOOK_RETRY_BACKOFF_MS: '20',
    OUTBOUND_ALLOW: `127.0.0.1:${port},${new URL(verify).host}`,
  });
});
afterAll(async () => {
  await w?.close();
  await receiver.close();
  await siteverify.close();
});

it('needs a bot-check token the verification endpoint accepts (400 turnstile_failed otherwise)', async () => {
  const missing = await fromUrl(w, { url: 'https://www.youtube.com/@hooked' });
  expect(missing.status).toBe(400);
  expect(missing.body.error).toBe('turnstile_failed');
  const wrong = await fromUrl(w, { url: 'https://www.youtube.com/@hooked', turnstileToken: 'bad-token' });
  expect(wrong.body.error).toBe('turnstile_failed');
  expect(siteverify.requests.at(-1)!.body.toString('utf8')).toBe('secret=turnstile-secret&response=bad-token');
});

it('POSTs each phase of the build once, in order, signed, retrying failed attempts, the last one ready', async () => {
  receiver.setAnswer((attempt) => (attempt === 1 ? 503 : 200));
  const r = await fromUrl(w, { url: 'https://www.youtube.com/@hooked', turnstileToken: 'good-token', deliver: { webhookUrl: hookUrl } });
  expect(r.status).toBe(202);
  const buildId = r.body.buildId as string;
  const ended = await settled(w, buildId);
  expect(ended.status).toBe('ready');
  const phases = ['queued', 'detecting', 'scraping', 'analyzing', 'provisioning', 'indexing', 'ready'];
  const deliveries = async () => {
    const res = await w.p.http.get(`/api/jobs/${buildId}/webhook-deliveries`, { token: w.owner.accessToken });
    expect(res.status).toBe(200);
    return res.body.deliveries as { event: string; status: string; attempts: number; lastStatusCode: number | null }[];
  };
  await waitFor(async () => {
    const list = await deliveries();
    return list.length === phases.length && list.every((d) => d.status !== 'pending');
  }, 'every webhook delivery of the build settled');

  // Recorded: one delivery per phase, in phase order, each delivered on its second attempt after a 503.
  expect((await deliveries()).map((d) => [d.event, d.status, d.attempts, d.lastStatusCode])).toEqual(
    phases.map((phase) => [phase, 'delivered', 2, 200]),
  );
  // Received: per phase its failed first attempt then its retry, the phases one after the other.
  const ofBuild = receiver.received.filter((q) => JSON.parse(q.body.toString('utf8')).buildId === buildId);
  expect(ofBuild.map((q) => [q.headers['x-service-event'], q.headers['x-service-attempt'], q.status])).toEqual(
    phases.flatMap((phase) => [
      [phase, '1', 503],
      [phase, '2', 200],
    ]),
  );
  for (const q of ofBuild) {
    expect(q.path).toBe('/hooks/builds');
    expect(q.headers['content-type']).toBe('application/json');
    expect(verifyWebhookSignature(SECRET, q.body, q.headers['x-service-signature'] as string)).toBe(true);
    expect(verifyWebhookSignature('another-secret', q.body, q.headers['x-service-signature'] as string)).toBe(false);
    expect(q.headers['x-service-event']).toBe(JSON.parse(q.body.toString('utf8')).status);
  }
  const events = ofBuild.filter((q) => q.status === 200).map((q) => JSON.parse(q.body.toString('utf8')));
  const progress = events.map((e) => e.progress as number);
  expect(progress).toEqual([...progress].sort((a, b) => a - b));
  expect(events.map((e) => e.step)).toEqual(phases);
  expect(events.at(-1)).toEqual((await poll(w, buildId)).body);
});
