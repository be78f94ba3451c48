import type { Request, Response } from 'express';

import type { JobDeps } from '../../core/jobs/job-deps';
import { JobFeed } from '../../core/jobs/job-feed';
import { SseWriter } from './sse';

const RECONNECT_MS = 1000;

/** `Last-Event-ID` (EventSource sends it on reconnect), or the `lastEventId` query parameter for clients that cannot set headers. */
export function lastEventIdOf(req: Request): string | null {
  const header = req.headers['last-event-id'];
  const value = (Array.isArray(header) ? header[0] : header) ?? (typeof req.query.lastEventId === 'string' ? req.query.lastEventId : '');
  return value && value.length <= 64 ? value : null;
}

/**
 * Streams one job's events as SSE (reused by every job surface, builds included): the feed is opened before the
 * headers go out, so a failure to subscribe is still an ordinary JSON error; a client that already holds the
 * terminal event gets 204. Frames are `id:` emittedAt, `event:` progress/done/error, `data:` the event JSON; a
 * `: ping` comment and a store re-read run every heartbeat; the response ends after the terminal frame or when
 * the client goes away.
 */
export async function streamJobEvents(
  deps: Pick<JobDeps, 'store' | 'bus' | 'kinds' | 'settings'>,
  jobId: string,
  req: Request,
  res: Response,
): Promise<void> {
  const feed = await JobFeed.open(deps, jobId, lastEventIdOf(req));
  if (feed.exhausted) {
    await feed.close();
    res.status(204).end();
    return;
  }
  const sse = new SseWriter(res);
  sse.open();
  // Reconnect after one second (EventSource waits 3 s by default); a job's events are worth catching up quickly.
  await sse.raw(`retry: ${RECONNECT_MS}\n\n`);
  const stop = () => void feed.close();
  res.once('close', stop);
  const heartbeat = setInterval(() => {
    void sse.raw(': ping\n\n');
    void feed.recheck().catch(() => undefined);
  }, deps.settings.heartbeatMs);
  heartbeat.unref();
  try {
    for (let frame = await feed.next(); frame && !sse.closed; frame = await feed.next()) {
      await sse.raw(`id: ${frame.id}\nevent: ${frame.event}\ndata: ${JSON.stringify(frame.data)}\n\n`);
    }
  } finally {
    clearInterval(heartbeat);
    res.off('close', stop);
    await feed.close();
    sse.end();
  }
}
