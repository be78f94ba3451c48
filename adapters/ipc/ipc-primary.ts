import type { EventBus } from '../../core/ports/event-bus';
import type { EnqueueOptions, JobQueue } from '../../core/ports/job-queue';
import type { RateLimitStore } from '../../core/ports/rate-limit-store';
import { type EventMessage, ignore, type IpcPort, serveCalls } from './ipc-rpc';
import { countReported, type ReportedHits } from './synced.rate-limit-store';

/** What the primary process shares with its HTTP replicas: the state that must be one for all of them. */
export interface SharedByPrimary {
  rateLimits: RateLimitStore;
  queue: JobQueue;
  bus: EventBus;
}

/**
 * The primary's side of one replica's channel: it answers the replica's rate-limit, queue and bus calls with
 * its own adapters, and relays every event of its bus (the replica's own publications included) to it.
 * Resolves with the function that stops both.
 */
export async function serveReplica(port: IpcPort, shared: SharedByPrimary): Promise<() => Promise<void>> {
  const { rateLimits, queue, bus } = shared;
  const stopCalls = serveCalls(port, {
    'rateLimits.hit': (key: string, limit: number, windowSeconds: number, cost?: number) => rateLimits.hit(key, limit, windowSeconds, cost),
    'rateLimits.peek': (key: string, limit: number, windowSeconds: number) => rateLimits.peek(key, limit, windowSeconds),
    'rateLimits.report': (batch: ReportedHits[]) => countReported(rateLimits, batch),
    'rateLimits.reset': (key: string, windowSeconds: number) => rateLimits.reset(key, windowSeconds),
    'queue.enqueue': (name: string, payload: unknown, options?: EnqueueOptions) => queue.enqueue(name, payload, options),
    'queue.deadLetters': (name: string) => queue.deadLetters(name),
    'queue.depths': async () => (await queue.depths?.()) ?? {},
    'bus.publish': (topic: string, payload: unknown) => bus.publish(topic, payload),
  });
  const relay = await bus.subscribe<unknown>('#', (e) => {
    try {
      port.send?.({ ipc: 'event', topic: e.topic, payload: e.payload } satisfies EventMessage, undefined, undefined, ignore);
    } catch {
      // The replica is gone; its supervisor starts another.
    }
  });
  return async () => {
    stopCalls();
    await relay.close();
  };
}
