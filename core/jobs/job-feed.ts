import type { Subscription } from '../ports/job-queue';
import { isTerminal } from './job';
import { type JobDeps, type JobNotice, jobTopic } from './job-deps';
import { sseEventName } from './job-kinds';
import { noticeOf } from './job-tracker';

/** One SSE frame: `id:` emittedAt, `event:` progress/done/error, `data:` the kind's event. */
export interface JobFrame {
  id: string;
  event: 'progress' | 'done' | 'error';
  data: Record<string, unknown>;
  terminal: boolean;
}

const instant = (iso: string | null | undefined): number | null => {
  if (!iso) return null;
  const t = Date.parse(iso);
  return Number.isFinite(t) ? t : null;
};

/**
 * The event stream of one job for one client (docs/contracts.md "Jobs", spec 4.13 SSE rules). It subscribes to the job's
 * topic first and then reads the store, so nothing emitted in between is lost; it replays the current state on
 * connect (unless `Last-Event-ID` says the client has it already), then passes on newer events in emittedAt
 * order (older or repeated ones, e.g. crossing on the bus, are dropped), and ends after the terminal event.
 * `recheck` re-reads the store: events missed by the bus (a broker reconnect) still arrive, at the next tick.
 */
export class JobFeed {
  private readonly frames: JobFrame[] = [];
  private waiter: (() => void) | null = null;
  private last: number | null;
  private finished = false;
  private closed = false;
  private subscription: Subscription | null = null;

  private constructor(
    private readonly deps: Pick<JobDeps, 'store' | 'bus' | 'kinds'>,
    private readonly jobId: string,
    lastEventId: string | null,
  ) {
    this.last = instant(lastEventId);
  }

  static async open(deps: Pick<JobDeps, 'store' | 'bus' | 'kinds'>, jobId: string, lastEventId: string | null): Promise<JobFeed> {
    const feed = new JobFeed(deps, jobId, lastEventId);
    feed.subscription = await deps.bus.subscribe<JobNotice>(jobTopic(jobId), (e) => feed.offer(e.payload));
    try {
      await feed.recheck();
    } catch (error) {
      await feed.close();
      throw error;
    }
    return feed;
  }

  /** True when the client already holds the terminal event: nothing will ever be sent. */
  get exhausted(): boolean {
    return this.finished && this.frames.length === 0;
  }

  async recheck(): Promise<void> {
    const job = await this.deps.store.repos.jobs.find(this.jobId);
    if (job) this.offer(noticeOf(this.deps, job));
  }

  /** The next frame to send, or null once the terminal frame was taken (or the feed closed). */
  async next(): Promise<JobFrame | null> {
    for (;;) {
      const frame = this.frames.shift();
      if (frame) return frame;
      if (this.finished || this.closed) return null;
      await new Promise<void>((resolve) => (this.waiter = resolve));
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.wake();
    const s = this.subscription;
    this.subscription = null;
    await s?.close().catch(() => undefined);
  }

  private offer(notice: JobNotice): void {
    if (this.finished || this.closed || notice.jobId !== this.jobId) return;
    const at = instant(notice.emittedAt);
    if (at === null) return;
    const terminal = isTerminal(notice.status);
    if (this.last !== null && at <= this.last) {
      // The client has this state already; if it is the terminal one, there is nothing left to send.
      if (terminal) this.finish();
      return;
    }
    this.last = at;
    this.frames.push({ id: notice.emittedAt, event: sseEventName(notice), data: notice.event, terminal });
    if (terminal) this.finish();
    this.wake();
  }

  private finish() {
    this.finished = true;
    this.wake();
    void this.subscription?.close().catch(() => undefined);
    this.subscription = null;
  }

  private wake() {
    const w = this.waiter;
    this.waiter = null;
    w?.();
  }
}
