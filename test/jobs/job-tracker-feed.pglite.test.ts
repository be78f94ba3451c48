/**
 * The job contract's core: one event per state change (monotonic progress, strictly increasing emittedAt),
 * terminal states final, kind-specific events in the same store, webhooks recorded with the states a kind sends,
 * and the per-client feed behind the SSE endpoint (replay, Last-Event-ID, ordering, catch-up from the store).
 */
import { randomUUID } from 'node:crypto';

import { JobFeed, type JobFrame } from '../../core/jobs/job-feed';
import { JobKindRegistry } from '../../core/jobs/job-kinds';
import { JobTracker } from '../../core/jobs/job-tracker';
import { ingestionReporter } from '../../core/knowledge/ingestion-progress';
import type { Store } from '../../core/ports/store';
import { buildJobKind } from '../../core/provisioning/build-event';
import { createJobsHarness, type JobsHarness, waitFor } from './jobs-harness';

let h: JobsHarness;
let org: string;
beforeAll(async () => {
  h = await createJobsHarness(new JobKindRegistry().register(buildJobKind));
  org = (await h.knowledge.newOrganization('jobs')).organizationId;
});
afterAll(() => h?.close());

const newJob = (over: { id?: string; kind?: string; webhookUrl?: string | null } = {}) =>
  h.tracker.start({ id: over.id ?? randomUUID(), organizationId: org, kind: over.kind ?? 'document_ingestion', ...over });

async function take(feed: JobFeed, n: number): Promise<JobFrame[]> {
  const frames: JobFrame[] = [];
  for (let i = 0; i < n; i++) frames.push((await feed.next())!);
  return frames;
}

describe('JobTracker', () => {
  it('publishes one generic event per change; progress never goes back; terminal is final', async () => {
    const id = randomUUID();
    const watch = await h.watch(id);
    const started = await newJob({ id });
    expect(started).toMatchObject({ status: 'queued', progress: 0 });
    await h.tracker.progress(id, { step: 'load', stepLabel: 'Reading', progress: 10, detail: 'page 1' });
    await h.tracker.progress(id, { progress: 5, detail: 'still reading' });
    await h.tracker.progress(id, { step: 'embed', progress: 150 });
    await h.tracker.complete(id, { result: { chunkCount: 2 } });
    expect(await h.tracker.progress(id, { progress: 20 })).toBeNull();
    expect(await h.tracker.fail(id, { code: 'x', message: 'late', retryable: false })).toBeNull();
    await waitFor(() => watch.notices.length >= 5, 'five events');
    await watch.close();
    const events = watch.notices.map((n) => n.event);
    expect(events).toHaveLength(5);
    expect(events[0]).toEqual({
      jobId: id,
      kind: 'document_ingestion',
      status: 'queued',
      progress: 0,
      step: null,
      stepLabel: null,
      detail: null,
      error: null,
      result: null,
      emittedAt: started.emittedAt,
    });
    expect(events.map((e) => [e.status, e.progress, e.step, e.detail])).toEqual([
      ['queued', 0, null, null],
      ['running', 10, 'load', 'page 1'],
      ['running', 10, 'load', 'still reading'],
      ['running', 100, 'embed', null], // a new step clears the detail; progress clamps to 100
      ['completed', 100, 'embed', null],
    ]);
    expect(events[4].result).toEqual({ chunkCount: 2 });
    const times = events.map((e) => Date.parse(e.emittedAt as string));
    for (let i = 1; i < times.length; i++) expect(times[i]).toBeGreaterThan(times[i - 1]);
    // start is idempotent: the same id again changes nothing and emits nothing.
    expect((await newJob({ id })).status).toBe('completed');
  });

  it('refuses ids that cannot name a topic', async () => {
    await expect(newJob({ id: 'jobs.*' })).rejects.toMatchObject({ code: 'VALIDATION' });
  });

  it('queues a webhook for the terminal event only (generic kinds), with the event as body', async () => {
    const id = randomUUID();
    await newJob({ id, webhookUrl: 'https://hooks.example/in' });
    await h.tracker.progress(id, { progress: 50 });
    expect(await h.deps.store.repos.webhookDeliveries.listForJob(org, id)).toEqual([]);
    const failed = await h.tracker.fail(id, { code: 'validation', message: 'No text', retryable: false });
    const [delivery] = await h.deps.store.repos.webhookDeliveries.listForJob(org, id);
    expect(delivery).toMatchObject({ url: 'https://hooks.example/in', event: 'failed', status: 'pending', attempts: 0 });
    expect(JSON.parse(delivery.body)).toEqual(h.deps.kinds.eventOf(failed!));
  });

  it('renders a kind-specific event (a build) from the same store and sends its phases to the webhook', async () => {
    const id = `bld_${randomUUID().replace(/-/g, '')}`;
    await newJob({ id, kind: 'provisioning_build', webhookUrl: 'https://hooks.example/builds' });
    await h.tracker.progress(id, { step: 'scraping', stepLabel: 'Reading the channel', progress: 20, body: { platform: 'youtube' } });
    const ready = await h.tracker.complete(id, { body: { agentSlug: 'cooking-with-ana', starterQuestions: ['What to cook?'] } });
    expect(h.deps.kinds.eventOf(ready!)).toEqual({
      buildId: id,
      status: 'ready',
      progress: 100,
      step: 'scraping',
      stepLabel: 'Reading the channel',
      platform: 'youtube',
      agentSlug: 'cooking-with-ana',
      starterQuestions: ['What to cook?'],
      emittedAt: ready!.emittedAt,
    });
    const deliveries = await h.deps.store.repos.webhookDeliveries.listForJob(org, id);
    expect(deliveries.map((d) => d.event)).toEqual(['queued', 'scraping', 'ready']);
  });

  it('sends each phase of a build once: ticks inside a phase and a resumed phase add no delivery', async () => {
    const id = `bld_${randomUUID().replace(/-/g, '')}`;
    await newJob({ id, kind: 'provisioning_build', webhookUrl: 'https://hooks.example/builds' });
    const scraping = await h.tracker.progress(id, { step: 'scraping', stepLabel: 'Reading', progress: 10 });
    await h.tracker.progress(id, { progress: 20, detail: '1 of 2 items' });
    await h.tracker.progress(id, { progress: 30, detail: '2 of 2 items' });
    await h.tracker.progress(id, { step: 'analyzing', stepLabel: 'Writing', progress: 40 });
    await h.tracker.progress(id, { step: 'analyzing', stepLabel: 'Writing', progress: 40 }); // a resumed build re-enters
    const failed = await h.tracker.fail(id, { code: 'analysis_failed', message: 'No model', retryable: true }, { step: 'failed' });
    const deliveries = await h.deps.store.repos.webhookDeliveries.listForJob(org, id);
    expect(deliveries.map((d) => d.event)).toEqual(['queued', 'scraping', 'analyzing', 'failed']);
    // Each body is the event at the moment the phase began; the rows are ordered by the events' emittedAt.
    expect(JSON.parse(deliveries[1].body)).toEqual(h.deps.kinds.eventOf(scraping!));
    expect(deliveries[1].createdAt).toBe(scraping!.emittedAt);
    expect(JSON.parse(deliveries[3].body)).toMatchObject({ status: 'failed', error: { code: 'analysis_failed' } });
    expect(deliveries[3].createdAt).toBe(failed!.emittedAt);
  });

  it('writes a state change and its webhook delivery together: a rolled-back change leaves neither', async () => {
    const id = randomUUID();
    await newJob({ id, webhookUrl: 'https://hooks.example/in' });
    await expect(
      h.deps.store.transaction(async () => {
        await h.tracker.complete(id, { result: { chunkCount: 1 } });
        throw new Error('the caller failed after reporting');
      }),
    ).rejects.toThrow('the caller failed');
    expect((await h.deps.store.repos.jobs.find(id))!.status).toBe('queued');
    expect(await h.deps.store.repos.webhookDeliveries.listForJob(org, id)).toEqual([]);
    await h.tracker.complete(id, { result: { chunkCount: 1 } });
    expect((await h.deps.store.repos.webhookDeliveries.listForJob(org, id)).map((d) => d.event)).toEqual(['completed']);
  });
});

describe('terminal reports of a pipeline', () => {
  it('are retried when the store is busy, so the job ends and its webhook is recorded', async () => {
    const id = randomUUID();
    await newJob({ id, webhookUrl: 'https://hooks.example/in' });
    // The embedded database answers "busy" to the first two attempts (its connection wait ran out).
    let busy = 2;
    const store = h.deps.store;
    const flaky: Store = {
      repos: store.repos,
      transaction: (work) => (busy-- > 0 ? Promise.reject(new Error('Knex: Timeout acquiring a connection')) : store.transaction(work)),
      afterCommit: (work) => store.afterCommit(work),
    };
    const tracker = new JobTracker({ ...h.deps, store: flaky });
    const reporter = ingestionReporter({ ...h.knowledge.deps, jobs: tracker }, id, []);
    await reporter.completed({ chunkCount: 3 }, {});
    expect(busy).toBe(-1);
    expect(await h.deps.store.repos.jobs.find(id)).toMatchObject({ status: 'completed', result: { chunkCount: 3 } });
    expect((await h.deps.store.repos.webhookDeliveries.listForJob(org, id)).map((d) => d.event)).toEqual(['completed']);
  });
});

describe('JobFeed', () => {
  const open = (id: string, lastEventId: string | null = null) => JobFeed.open(h.deps, id, lastEventId);

  it('replays the current state on connect, then streams newer events and ends after the terminal one', async () => {
    const id = randomUUID();
    await newJob({ id });
    await h.tracker.progress(id, { step: 'load', progress: 10 });
    const feed = await open(id);
    const [replay] = await take(feed, 1);
    expect(replay).toMatchObject({ event: 'progress', terminal: false, data: { status: 'running', progress: 10, step: 'load' } });
    expect(replay.id).toBe(replay.data.emittedAt);
    await h.tracker.progress(id, { step: 'embed', progress: 40 });
    await h.tracker.complete(id);
    const [progress, done] = await take(feed, 2);
    expect(progress).toMatchObject({ event: 'progress', data: { progress: 40 } });
    expect(done).toMatchObject({ event: 'done', terminal: true, data: { status: 'completed', progress: 100 } });
    expect(await feed.next()).toBeNull();
    await feed.close();
  });

  it('with Last-Event-ID: no replay of what the client has, newer states still arrive', async () => {
    const id = randomUUID();
    await newJob({ id });
    const current = await h.tracker.progress(id, { progress: 30 });
    const feed = await open(id, current!.emittedAt);
    const failed = await h.tracker.fail(id, { code: 'upstream_failed', message: 'Embedder down', retryable: true });
    const [frame] = await take(feed, 1);
    expect(frame).toMatchObject({ id: failed!.emittedAt, event: 'error', data: { error: { code: 'upstream_failed' } } });
    expect(await feed.next()).toBeNull();
    await feed.close();
    // A client that holds the terminal event has nothing left: the feed is exhausted at once.
    const after = await open(id, failed!.emittedAt);
    expect(after.exhausted).toBe(true);
    expect(await after.next()).toBeNull();
    await after.close();
    // An older Last-Event-ID gets the current (terminal) state, then the end.
    const behind = await open(id, current!.emittedAt);
    expect((await take(behind, 1))[0]).toMatchObject({ event: 'error' });
    expect(await behind.next()).toBeNull();
    await behind.close();
  });

  it('drops repeated and older events; recheck catches up with a change the bus never carried', async () => {
    const id = randomUUID();
    await newJob({ id });
    const feed = await open(id);
    const [first] = await take(feed, 1);
    // A change written to the store without an event (a lost bus message): recheck finds it.
    const silent = await h.deps.store.repos.jobs.advance(id, { progress: 70, detail: 'silent' }, new Date().toISOString());
    await feed.recheck();
    await feed.recheck(); // twice: the same state is sent once
    const [caught] = await take(feed, 1);
    expect(caught).toMatchObject({ id: silent!.emittedAt, data: { progress: 70, detail: 'silent' } });
    expect(Date.parse(caught.id)).toBeGreaterThan(Date.parse(first.id));
    await h.tracker.complete(id);
    const [done] = await take(feed, 1);
    expect(done.event).toBe('done');
    await feed.close();
  });
});
