/**
 * Observability end to end through the gateway, on one platform whose logs are captured through the logger's
 * destination and whose spans go to a local OTLP/HTTP receiver: request ids reach the request's log line, its
 * error bodies and its jobs' log lines; /metrics parses as Prometheus text and its counters move; a chat request
 * is one trace from the gateway to billing, and the ingestion job's span joins its upload's trace.
 */
import { randomUUID } from 'node:crypto';

import parsePrometheusTextFormat from 'parse-prometheus-text-format';

import { waitFor } from '../conformance/job-queue.conformance';
import { createKb, waitForDocument } from '../knowledge/knowledge-support';
import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { registerUser, type TestUser } from '../support/users';
import { OtlpReceiver, type ReceivedSpan } from './otlp-receiver';

type LogLine = Record<string, unknown>;
const lines: LogLine[] = [];
const receiver = new OtlpReceiver();
let p: TestPlatform;
let owner: TestUser;
let kbId: string;
let uploadRequestId: string;
let documentId: string;

beforeAll(async () => {
  const endpoint = await receiver.start();
  p = await startTestPlatform(
    {
      LOG_LEVEL: 'info',
      TRUST_PROXY: 'true',
      RATE_LIMIT_PER_IP: '60',
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_SERVICE_NAME: 'obs-e2e',
    },
    { logDestination: { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) } },
  );
  owner = await registerUser(p.http, { label: 'obs' });
  kbId = (await createKb(p, owner.accessToken)).id;
  uploadRequestId = `upload-${randomUUID()}`;
  const form = new FormData();
  const text = 'Refunds are paid within fourteen days.\n\nShipping is free above fifty euros.';
  form.append('file', new Blob([text], { type: 'text/plain' }), 'policy.txt');
  const res = await fetch(`${p.gatewayUrl}/api/knowledge/kb/${kbId}/documents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.accessToken}`, 'x-request-id': uploadRequestId },
    body: form,
  });
  expect(res.status).toBe(201);
  expect(res.headers.get('x-request-id')).toBe(uploadRequestId);
  documentId = ((await res.json()) as { document: { id: string } }).document.id;
  expect((await waitForDocument(p, owner.accessToken, kbId, documentId)).processingStatus).toBe('completed');
}, BOOT_TIMEOUT_MS);

afterAll(async () => {
  await p?.close();
  await receiver.close();
}, BOOT_TIMEOUT_MS);

describe('request ids', () => {
  it('appear in the request log line and in every log line of the ingestion job it enqueued', async () => {
    const requestLine = lines.find((l) => l.message === 'request' && l.requestId === uploadRequestId);
    expect(requestLine).toMatchObject({ level: 'info', method: 'POST', route: '/api/knowledge/kb/:id/documents', status: 201 });
    expect(requestLine?.organizationId).toBe(owner.orgId);
    await waitFor(() => lines.some((l) => l.queue === 'knowledge.ingest' && l.message === 'job'));
    const jobLines = lines.filter((l) => l.queue === 'knowledge.ingest');
    expect(jobLines.length).toBeGreaterThan(0);
    for (const line of jobLines) expect(line.requestId).toBe(uploadRequestId);
    expect(jobLines).toContainEqual(
      expect.objectContaining({ message: 'job', outcome: 'completed', attempt: 1, jobId: expect.any(String) }),
    );
    // No body or credential on the request line.
    expect(JSON.stringify(requestLine)).not.toContain(owner.accessToken);
    expect(JSON.stringify(lines)).not.toContain('fourteen days');
  });

  it('are in the X-Request-Id header of errors from the gateway and from the api, never in the body', async () => {
    // docs/contracts.md "Error body": {error, message} plus optional code and details, nothing else
    const keys = (body: Record<string, unknown>) => Object.keys(body).every((k) => ['error', 'message', 'code', 'details'].includes(k));
    const fromGateway = await p.http.get('/api/bots', { headers: { 'x-request-id': 'gw-error-1' } });
    expect(fromGateway.status).toBe(401);
    expect(fromGateway.headers.get('x-request-id')).toBe('gw-error-1');
    expect(fromGateway.body).toMatchObject({ code: 'MISSING_AUTHORIZATION' });
    const fromApi = await p.http.get(`/api/knowledge/kb/${randomUUID()}`, {
      token: owner.accessToken,
      headers: { 'x-request-id': 'api-error-1' },
    });
    expect(fromApi.status).toBe(404);
    expect(fromApi.headers.get('x-request-id')).toBe('api-error-1');
    const generated = await p.http.post('/api/knowledge/kb', { name: 123 }, { token: owner.accessToken });
    expect(generated.status).toBe(400);
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    for (const r of [fromGateway, fromApi, generated]) expect(keys(r.body)).toBe(true);
  });
});

type Sample = { value: string; labels?: Record<string, string>; count?: string; buckets?: Record<string, string> };
type Family = { name: string; type: string; metrics: Sample[] };

let lastText = '';
async function scrape(): Promise<Map<string, Family>> {
  const res = await fetch(`${p.apiUrl}/metrics`);
  expect(res.status).toBe(200);
  lastText = await res.text();
  const families = parsePrometheusTextFormat(lastText) as Family[];
  return new Map(families.map((f) => [f.name, f]));
}

const valueOf = (families: Map<string, Family>, name: string, labels: Record<string, string> = {}) =>
  (families.get(name)?.metrics ?? [])
    .filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))
    .reduce((sum, m) => sum + Number(m.value ?? m.count ?? 0), 0);

describe('/metrics', () => {
  it('parses as Prometheus text with queue, job, ingestion, model and rate-limit series that move with traffic', async () => {
    const before = await scrape();
    for (const name of [
      'http_request_duration_seconds',
      'jobs_queue_depth',
      'jobs_total',
      'job_duration_seconds',
      'ingestion_documents_total',
      'ingestion_chunks_total',
      'model_tokens_total',
      'model_cost_usd_total',
      'gateway_rate_limited_total',
    ]) {
      expect(before.has(name)).toBe(true);
    }
    expect(valueOf(before, 'jobs_total', { queue: 'knowledge.ingest', outcome: 'completed' })).toBeGreaterThanOrEqual(1);
    expect(valueOf(before, 'ingestion_documents_total', { outcome: 'completed' })).toBeGreaterThanOrEqual(1);
    expect(valueOf(before, 'ingestion_chunks_total')).toBeGreaterThanOrEqual(1);
    expect(before.get('jobs_queue_depth')?.metrics.some((m) => m.labels?.queue === 'knowledge.ingest')).toBe(true);
    expect(before.get('job_duration_seconds')?.type).toBe('HISTOGRAM');

    // Traffic: a chat (tokens), and one client address over its rate limit.
    const agent = await p.http.post(
      '/api/bots',
      { name: 'Metrics', knowledgeBaseIds: [kbId], isDraft: false },
      { token: owner.accessToken },
    );
    expect(agent.status).toBe(201);
    const chat = await p.http.post(
      `/api/bots/${agent.body.bot.id}/chat`,
      { message: 'When are refunds paid?' },
      { token: owner.accessToken },
    );
    expect(chat.status).toBe(200);
    let refused = 0;
    for (let i = 0; i < 70 && refused === 0; i++) {
      const r = await p.http.get('/api/public/agents/no-such-agent', { headers: { 'x-forwarded-for': '203.0.113.77' } });
      if (r.status === 429) refused++;
    }
    expect(refused).toBe(1);

    const after = await scrape();
    expect(valueOf(after, 'gateway_rate_limited_total', { scope: 'ip' })).toBe(
      valueOf(before, 'gateway_rate_limited_total', { scope: 'ip' }) + 1,
    );
    // The model the chat was billed for (the agent's default, the offline provider here).
    const wallet = await p.http.get('/api/billing/wallet', { token: owner.accessToken });
    const model = (wallet.body.events as { kind: string; model: string }[]).find((e) => e.kind === 'chat')!.model;
    const tokens = valueOf(after, 'model_tokens_total', { model, kind: 'chat' });
    expect(tokens).toBeGreaterThan(valueOf(before, 'model_tokens_total', { model, kind: 'chat' }));
    expect(
      after.get('model_cost_usd_total')?.metrics.some((m) => m.labels?.model === model && m.labels?.provider === model.split('/')[0]),
    ).toBe(true);
    // The parser folds a labelled histogram's series into one (a limit of the package), so the per-route
    // count is read from the exposition line itself.
    expect(lastText).toMatch(/^http_request_duration_seconds_count\{method="POST",route="\/api\/bots\/:id\/chat",status="200"\} [1-9]/m);
  });
});

describe('traces over OTLP', () => {
  const inTrace = (traceId: string) => receiver.spans.filter((s) => s.traceId === traceId);

  it('make a chat request one trace: gateway -> api -> retrieval -> model call -> billing', async () => {
    const agent = await p.http.post(
      '/api/bots',
      { name: 'Traced', knowledgeBaseIds: [kbId], isDraft: false },
      { token: owner.accessToken },
    );
    expect(agent.status).toBe(201);
    const requestId = `chat-${randomUUID()}`;
    const chat = await p.http.post(
      `/api/bots/${agent.body.bot.id}/chat`,
      { message: 'Is shipping free?' },
      { token: owner.accessToken, headers: { 'x-request-id': requestId } },
    );
    expect(chat.status).toBe(200);
    let api: ReceivedSpan | undefined;
    await waitFor(() => {
      api = receiver.spans.find((s) => s.name === 'api.request' && s.attributes['request.id'] === requestId);
      return (
        !!api &&
        ['billing.charge', 'model.call', 'retrieval', 'gateway.request'].every((n) => inTrace(api!.traceId).some((s) => s.name === n))
      );
    }, 30_000);
    const spans = inTrace(api!.traceId);
    const byName = (name: string) => spans.find((s) => s.name === name)!;
    expect(api!.attributes['http.route']).toBe('/api/bots/:id/chat');
    expect(api!.parentSpanId).toBe(byName('gateway.request').spanId);
    for (const name of ['retrieval', 'model.call', 'billing.charge']) expect(byName(name).traceId).toBe(api!.traceId);
    expect(byName('model.call').attributes['gen_ai.request.model']).toEqual(expect.any(String));
    expect(spans.every((s) => s.serviceName === 'obs-e2e')).toBe(true);
    expect(receiver.contentTypes[0]).toContain('application/json');
  });

  it('put the ingestion job in the trace of the upload that enqueued it', async () => {
    let upload: ReceivedSpan | undefined;
    await waitFor(() => {
      upload = receiver.spans.find((s) => s.name === 'api.request' && s.attributes['request.id'] === uploadRequestId);
      return !!upload && inTrace(upload.traceId).some((s) => s.name === 'job knowledge.ingest');
    }, 30_000);
    const job = inTrace(upload!.traceId).find((s) => s.name === 'job knowledge.ingest')!;
    expect(job.attributes['job.queue']).toBe('knowledge.ingest');
    expect(job.attributes['job.attempt']).toBe(1);
  });
});
