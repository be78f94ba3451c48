import { AsyncLocalStorage } from 'node:async_hooks';

import { runEventBusConformance } from '../../test/conformance/event-bus.conformance';
import { waitFor } from '../../test/conformance/job-queue.conformance';
import { InProcessEventBus, topicMatches } from './in-process.event-bus';

runEventBusConformance('in-process', async () => new InProcessEventBus({ logger: { warn: () => undefined } }));

describe('InProcessEventBus specifics', () => {
  it('matches topics like an AMQP topic exchange', () => {
    expect(topicMatches('a.b', 'a.b')).toBe(true);
    expect(topicMatches('a.b', 'a.b.c')).toBe(false);
    expect(topicMatches('a.*', 'a.b')).toBe(true);
    expect(topicMatches('a.*', 'a')).toBe(false);
    expect(topicMatches('a.#', 'a')).toBe(true);
    expect(topicMatches('a.#', 'a.b.c')).toBe(true);
    expect(topicMatches('#', 'anything.at.all')).toBe(true);
    expect(topicMatches('*.b.#.d', 'x.b.d')).toBe(true);
    expect(topicMatches('*.b.#.d', 'x.b.c.c.d')).toBe(true);
    expect(topicMatches('*.b.#.d', 'b.d')).toBe(false);
  });

  it('logs handler failures and uses the injected clock', async () => {
    const warnings: string[] = [];
    const bus = new InProcessEventBus({
      logger: { warn: (m) => void warnings.push(m) },
      clock: { now: () => new Date('2025-05-05T00:00:00.000Z') },
    });
    const times: string[] = [];
    await bus.subscribe('t', () => {
      throw new Error('boom');
    });
    await bus.subscribe('t', (e) => void times.push(e.emittedAt));
    await bus.publish('t', null);
    await waitFor(() => times.length === 1 && warnings.length === 1);
    expect(times).toEqual(['2025-05-05T00:00:00.000Z']);
    expect(warnings[0]).toContain('t');
    await bus.close();
  });

  it('gives each subscriber its own copy of the payload', async () => {
    const bus = new InProcessEventBus();
    const seen: unknown[] = [];
    await bus.subscribe('copy', (e) => {
      (e.payload as { n: number }).n = 100;
    });
    await bus.subscribe('copy', (e) => void seen.push(e.payload));
    await bus.publish('copy', { n: 1 });
    await waitFor(() => seen.length === 1);
    expect(seen).toEqual([{ n: 1 }]);
    await bus.close();
  });

  it("runs handlers in the subscriber's async context, not the publisher's", async () => {
    const bus = new InProcessEventBus();
    const request = new AsyncLocalStorage<string>();
    const seen: (string | undefined)[] = [];
    await request.run('subscriber', () => bus.subscribe('ctx', () => void seen.push(request.getStore())));
    await request.run('publisher', () => bus.publish('ctx', null));
    await waitFor(() => seen.length === 1);
    expect(seen).toEqual(['subscriber']);
    await bus.close();
  });
});
