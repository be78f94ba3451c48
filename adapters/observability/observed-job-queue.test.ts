import { waitFor } from '../../test/conformance/job-queue.conformance';
import { InProcessJobQueue } from '../memory/in-process.job-queue';
import { ObservedJobQueue } from './observed-job-queue';
import { createPlatformMetrics } from './platform-metrics';
import { currentRequestContext, runWithRequestContext } from './request-context';

type Line = { level: string; message: string; extra?: unknown; requestId?: string; jobId?: string };

function setUp() {
  const lines: Line[] = [];
  // The platform's logger reads the same context; this one records what it would have put on each line.
  const log = (level: string, message: string, extra?: unknown) => lines.push({ level, message, extra, ...currentRequestContext() });
  const inner = new InProcessJobQueue({ logger: { warn: () => undefined } });
  const metrics = createPlatformMetrics(() => inner.depths());
  const queue = new ObservedJobQueue(inner, metrics, log);
  return { queue, metrics, lines };
}

const counter = async (metrics: ReturnType<typeof createPlatformMetrics>, queue: string, outcome: string) =>
  (await metrics.registry.getSingleMetric('jobs_total')!.get()).values.find((v) => v.labels.queue === queue && v.labels.outcome === outcome)
    ?.value ?? 0;

describe('ObservedJobQueue', () => {
  it("gives a job its request's id, runs its handler under it, and jobs it enqueues (a webhook delivery) inherit it", async () => {
    const { queue, lines } = setUp();
    const seen: { queue: string; requestId?: string }[] = [];
    await queue.consume('work', async (job) => {
      seen.push({ queue: job.queue, requestId: job.metadata?.requestId });
      await queue.enqueue('hooks', { after: job.id });
    });
    await queue.consume('hooks', async (job) => void seen.push({ queue: job.queue, requestId: job.metadata?.requestId }));
    await runWithRequestContext({ requestId: 'req-42' }, () => queue.enqueue('work', { n: 1 }));
    await queue.enqueue('work', { n: 2 }); // outside any request
    await waitFor(() => seen.length === 4);
    expect(
      seen
        .filter((s) => s.requestId === 'req-42')
        .map((s) => s.queue)
        .sort(),
    ).toEqual(['hooks', 'work']);
    expect(seen.filter((s) => s.requestId === undefined)).toHaveLength(2);
    await waitFor(() => lines.filter((l) => l.message === 'job').length === 4);
    const fromRequest = lines.filter((l) => l.requestId === 'req-42');
    expect(fromRequest).toHaveLength(2);
    for (const line of fromRequest)
      expect(line).toMatchObject({ level: 'info', message: 'job', jobId: expect.any(String), extra: { outcome: 'completed' } });
    await queue.close();
  });

  it('keeps a request id the caller set explicitly', async () => {
    const { queue } = setUp();
    const ids: (string | undefined)[] = [];
    await queue.consume('work', async (job) => void ids.push(job.metadata?.requestId));
    await runWithRequestContext({ requestId: 'ambient' }, () => queue.enqueue('work', 1, { metadata: { requestId: 'explicit' } }));
    await waitFor(() => ids.length === 1);
    expect(ids).toEqual(['explicit']);
    await queue.close();
  });

  it('counts completed, retried and failed attempts per queue and logs the last failure as a warning', async () => {
    const { queue, metrics, lines } = setUp();
    await queue.consume(
      'flaky',
      async (job) => {
        if ((job.payload as { fail: boolean }).fail || job.attempt < 2) throw new Error('boom');
      },
      { maxAttempts: 2, backoffMs: 5 },
    );
    await queue.enqueue('flaky', { fail: false }); // retried once, then completed
    await queue.enqueue('flaky', { fail: true }); // retried once, then failed
    await waitFor(async () => (await queue.deadLetters('flaky')).length === 1 && (await counter(metrics, 'flaky', 'completed')) === 1);
    expect(await counter(metrics, 'flaky', 'retried')).toBe(2);
    expect(await counter(metrics, 'flaky', 'failed')).toBe(1);
    expect(lines.filter((l) => l.level === 'warn' && (l.extra as { outcome?: string }).outcome === 'failed')).toHaveLength(1);
    const text = await metrics.registry.metrics();
    expect(text).toContain('job_duration_seconds_count{queue="flaky",outcome="completed"} 1');
    await queue.close();
  });
});
