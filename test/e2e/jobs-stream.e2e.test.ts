/**
 * The job contract end to end through the gateway (docs/contracts.md "Jobs"): a document upload's jobId is a job whose
 * ingestion progress a real EventSource client follows (replay on connect, `event:` progress/done, `id:`
 * emittedAt, close after the terminal event), reconnects resume with Last-Event-ID, the poll endpoint gives
 * the same event, source syncs report the same way, and only members of the job's organization see a job.
 */
import { LocalEmbedder } from '../../adapters/local-ai/local-hash.embedder';
import { jobTracker } from '../../app/jobs-services';
import type { Embedder } from '../../core/ports/embedder';
import { FakeHttpServer } from '../fakes/fake-http-server';
import { readStream, watchJob } from '../jobs/job-clients';
import { createKb, upload, waitForDocument } from '../knowledge/knowledge-support';
import { waitFor } from '../public-chat/public-support';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { joinOrganization, registerUser, type TestUser } from '../support/users';

/** The offline embedder behind a gate: document embeddings wait while the gate is closed (queries pass). */
class GatedEmbedder implements Embedder {
  readonly id = 'gated';
  private readonly inner = new LocalEmbedder();
  readonly model = this.inner.model;
  private gate: Promise<void> = Promise.resolve();
  private open: () => void = () => undefined;
  close() {
    this.gate = new Promise((resolve) => (this.open = resolve));
  }
  release() {
    this.open();
  }
  async embed(texts: string[], options: { dimensions: number; purpose: 'document' | 'query' }) {
    if (options.purpose === 'document') await this.gate;
    return this.inner.embed(texts, options);
  }
}

const embedder = new GatedEmbedder();
const site = new FakeHttpServer((req) =>
  req.path === '/guide'
    ? {
        headers: { 'content-type': 'text/html' },
        body: '<html><head><title>Guide</title></head><body><main><h1>Guide</h1><p>Lamps are lit at dusk by the keeper of the lighthouse.</p></main></body></html>',
      }
    : undefined,
);
let p: TestPlatform;
let owner: TestUser;
let viewer: TestUser;
let outsider: TestUser;
let kbId: string;
let siteUrl: string;

beforeAll(async () => {
  siteUrl = await site.start();
  p = await startTestPlatform({ OUTBOUND_ALLOW: new URL(siteUrl).host }, { knowledge: { embedder: { embedder, dimensions: 256 } } });
  owner = await registerUser(p.http, { label: 'jobs-owner' });
  viewer = await joinOrganization(p.http, owner, owner.orgId, await registerUser(p.http, { label: 'jobs-viewer' }), 'viewer');
  outsider = await registerUser(p.http, { label: 'jobs-outsider' });
  kbId = (await createKb(p, owner.accessToken, { name: 'Jobs' })).id;
});
afterAll(async () => {
  embedder.release();
  await p?.close();
  await site.close();
});

const as = (user: TestUser) => ({ token: user.accessToken });
const uploadText = (name: string, text: string) =>
  upload(p, `/api/knowledge/kb/${kbId}/documents`, owner.accessToken, { name, type: 'text/plain', bytes: Buffer.from(text) });
const getJob = (jobId: string, user = owner) => p.http.get(`/api/jobs/${jobId}`, as(user));

describe('watching a document ingestion with EventSource', () => {
  it('replays the current state, streams the steps with rising progress, ends with done', async () => {
    embedder.close();
    const up = await uploadText('lighthouse.txt', 'The keeper lights the lamp at dusk and trims the wick at midnight. '.repeat(30));
    expect(up.status).toBe(201);
    const jobId = up.body.jobId as string;
    const polled = await getJob(jobId);
    expect(polled.status).toBe(200);
    expect(polled.body).toMatchObject({ jobId, kind: 'document_ingestion', status: expect.stringMatching(/^(queued|running)$/) });

    const stream = watchJob(p, owner.accessToken, jobId);
    try {
      await waitFor(async () => stream.events.some((e) => e.data.step === 'embed'), 'the embed step (held by the gate)');
      embedder.release();
      await waitFor(async () => stream.events.some((e) => e.type === 'done'), 'the done event');
    } finally {
      embedder.release();
      stream.source.close();
    }
    const events = stream.events;
    expect(events.every((e) => e.id === e.data.emittedAt && e.data.jobId === jobId)).toBe(true);
    expect(events.slice(0, -1).every((e) => e.type === 'progress' && e.data.status !== 'completed')).toBe(true);
    const done = events.at(-1)!;
    expect(done).toMatchObject({ type: 'done', data: { status: 'completed', progress: 100, error: null } });
    expect(done.data.result).toMatchObject({ documentId: up.body.document.id, knowledgeBaseId: kbId, chunkCount: expect.any(Number) });
    const steps = events.map((e) => e.data.step);
    expect(steps).toEqual(expect.arrayContaining(['embed', 'store', 'summary']));
    const progress = events.map((e) => e.data.progress as number);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    const ids = events.map((e) => Date.parse(e.id));
    expect(ids).toEqual([...new Set(ids)].sort((a, b) => a - b));
    // The first connection sent no Last-Event-ID.
    expect(stream.connections[0]['Last-Event-ID']).toBeUndefined();

    // Polling gives the same terminal event; the document itself is completed.
    expect((await getJob(jobId)).body).toEqual(done.data);
    expect((await waitForDocument(p, owner.accessToken, kbId, up.body.document.id)).processingStatus).toBe('completed');

    // A fresh connect to a finished job replays the terminal state and closes; with its id as Last-Event-ID: 204.
    const replay = await readStream(p, owner.accessToken, jobId);
    expect(replay.status).toBe(200);
    expect(replay.contentType).toMatch(/^text\/event-stream/);
    expect(replay.frames).toEqual([{ id: done.id, event: 'done', data: done.data }]);
    expect((await readStream(p, owner.accessToken, jobId, done.id)).status).toBe(204);
  });

  it('an EventSource that loses its connection reconnects with Last-Event-ID and gets the newer state only', async () => {
    const tracker = jobTracker(p.infra);
    const jobId = `job-${Date.now()}`;
    await tracker.start({ id: jobId, organizationId: owner.orgId, kind: 'graph_optimization' });
    const first = await tracker.progress(jobId, { step: 'analysing', progress: 10 });
    const stream = watchJob(p, viewer.accessToken, jobId);
    try {
      await waitFor(async () => stream.events.length === 1, 'the replayed state');
      expect(stream.events[0]).toMatchObject({ type: 'progress', id: first!.emittedAt, data: { progress: 10 } });
      const held = stream.holdReconnects();
      stream.dropConnection();
      await waitFor(async () => stream.connections.length === 2, 'a reconnect attempt');
      // Changes while the client is away: only the latest state is owed on reconnect.
      await tracker.progress(jobId, { progress: 20 });
      const latest = await tracker.progress(jobId, { progress: 30, detail: 'three of ten' });
      held.release();
      await waitFor(async () => stream.events.length === 2, 'the state after reconnecting');
      expect(stream.connections[1]['Last-Event-ID']).toBe(first!.emittedAt);
      expect(stream.events[1]).toMatchObject({ type: 'progress', id: latest!.emittedAt, data: { progress: 30, detail: 'three of ten' } });
      const failed = await tracker.fail(jobId, { code: 'internal', message: 'Broke', retryable: true });
      await waitFor(async () => stream.events.length === 3, 'the terminal event');
      expect(stream.events[2]).toMatchObject({
        type: 'error',
        id: failed!.emittedAt,
        data: { status: 'failed', error: { code: 'internal' } },
      });
    } finally {
      stream.source.close();
    }
    expect(stream.events.map((e) => e.data.progress)).toEqual([10, 30, 30]);
  });
});

describe('who may read a job', () => {
  it('members of its organization only: outsiders and unknown ids get 404', async () => {
    const up = await uploadText('access.txt', 'Only members read this job.');
    const jobId = up.body.jobId;
    expect((await getJob(jobId, viewer)).status).toBe(200);
    for (const r of [
      await getJob(jobId, outsider),
      await getJob('no-such-job', owner),
      await p.http.get(`/api/jobs/${jobId}/events`, as(outsider)),
    ]) {
      expect({ status: r.status, error: r.body?.error }).toEqual({ status: 404, error: 'Not Found' });
    }
    expect((await p.http.get(`/api/jobs/${jobId}/webhook-deliveries`, as(outsider))).status).toBe(404);
    expect((await p.http.get(`/api/jobs/${jobId}`)).status).toBe(401);
  });
});

describe('other jobs on the same contract', () => {
  const terminal = (jobId: string) =>
    waitFor(async () => {
      const r = await getJob(jobId);
      return r.body.status === 'completed' || r.body.status === 'failed' ? r.body : null;
    }, `job ${jobId} to finish`);

  it('source syncs: adding a source and re-syncing return jobs that complete with the sync report', async () => {
    const added = await p.http.post(`/api/knowledge/kb/${kbId}/sources/url`, { url: `${siteUrl}/guide` }, as(owner));
    expect(added.status).toBe(201);
    const first = await terminal(added.body.jobId);
    expect(first).toMatchObject({ kind: 'source_sync', status: 'completed', progress: 100, step: 'done' });
    expect(first.result).toMatchObject({ sourceId: added.body.source.id, status: 'healthy', listed: 1, created: 1 });
    const again = await p.http.post(`/api/knowledge/kb/${kbId}/sources/${added.body.source.id}/sync`, undefined, as(owner));
    expect(again.status).toBe(200);
    expect(again.body.jobId).not.toBe(added.body.jobId);
    expect((await terminal(again.body.jobId)).result).toMatchObject({ unchanged: 1, created: 0 });
  });

  it('a failed document and its retry are two jobs, both readable', async () => {
    const up = await uploadText('blank.txt', '   \n   ');
    const failed = await terminal(up.body.jobId);
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'validation', retryable: false } });
    const retried = await p.http.post(`/api/knowledge/kb/${kbId}/documents/${up.body.document.id}/retry`, undefined, as(owner));
    expect(retried.status).toBe(200);
    expect(retried.body.jobId).not.toBe(up.body.jobId);
    expect(await terminal(retried.body.jobId)).toMatchObject({ jobId: retried.body.jobId, status: 'failed' });
  });
});
