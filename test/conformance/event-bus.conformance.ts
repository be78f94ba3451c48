import { randomBytes } from 'node:crypto';

import type { BusEvent, EventBus } from '../../core/ports/event-bus';
import { sleep, waitFor } from './job-queue.conformance';

/**
 * Shared behaviour of every EventBus adapter. Topics follow AMQP topic rules (`.`-separated words,
 * `*` one word, `#` zero or more) in every adapter. "Not delivered" checks publish a later marker event
 * and wait for it first, so they do not depend on timing.
 */
export interface EventBusCapabilities {
  /** Several bus instances (processes) share one backend, so an event reaches subscribers of another instance. */
  sharedAcrossInstances?: boolean;
}

export function runEventBusConformance(name: string, factory: () => Promise<EventBus>, capabilities: EventBusCapabilities = {}): void {
  describe(`EventBus conformance: ${name}`, () => {
    const created: EventBus[] = [];
    const make = async (): Promise<EventBus> => {
      const bus = await factory();
      created.push(bus);
      return bus;
    };
    const topic = (label: string) => `conf.${label}.${randomBytes(4).toString('hex')}`;

    afterEach(async () => {
      await Promise.allSettled(created.splice(0).map((b) => b.close()));
    });

    it('describes itself with an id', async () => {
      const bus = await make();
      expect(typeof bus.id).toBe('string');
      expect(bus.id.length).toBeGreaterThan(0);
    });

    it('fans an event out to every subscriber of its topic', async () => {
      const bus = await make();
      const t = topic('fanout');
      const received: BusEvent[][] = [[], [], []];
      for (const list of received) await bus.subscribe(t, (event) => void list.push(event));
      await bus.publish(t, { progress: 42 });
      await waitFor(() => received.every((list) => list.length === 1));
      for (const [event] of received) {
        expect(event.topic).toBe(t);
        expect(event.payload).toEqual({ progress: 42 });
        expect(new Date(event.emittedAt).toISOString()).toBe(event.emittedAt);
      }
    });

    (capabilities.sharedAcrossInstances ? it : it.skip)('delivers to subscribers of another bus instance', async () => {
      const publisher = await make();
      const subscriberBus = await make();
      const t = topic('cross');
      const received: unknown[] = [];
      await subscriberBus.subscribe(t, (event) => void received.push(event.payload));
      await publisher.publish(t, 'hello');
      await waitFor(() => received.length === 1);
      expect(received).toEqual(['hello']);
    });

    it('calls handlers asynchronously, never inside publish', async () => {
      const bus = await make();
      const t = topic('async');
      let publishReturned = false;
      const seenDuringPublish: boolean[] = [];
      await bus.subscribe(t, () => void seenDuringPublish.push(publishReturned));
      const publishing = bus.publish(t, 1);
      publishReturned = true;
      await publishing;
      await waitFor(() => seenDuringPublish.length === 1);
      expect(seenDuringPublish).toEqual([true]);
    });

    it('only delivers matching topics, with * and # wildcards', async () => {
      const bus = await make();
      const base = topic('wild');
      const exact: string[] = [];
      const star: string[] = [];
      const hash: string[] = [];
      await bus.subscribe(`${base}.a`, (e) => void exact.push(e.topic));
      await bus.subscribe(`${base}.*`, (e) => void star.push(e.topic));
      await bus.subscribe(`${base}.#`, (e) => void hash.push(e.topic));
      await bus.publish(`${base}.b`, 1);
      await bus.publish(`${base}.a.deep`, 2);
      await bus.publish(`${base}.a`, 3);
      await waitFor(() => exact.length === 1 && star.length === 2 && hash.length === 3);
      expect(exact).toEqual([`${base}.a`]);
      expect([...star].sort()).toEqual([`${base}.a`, `${base}.b`]);
      expect([...hash].sort()).toEqual([`${base}.a`, `${base}.a.deep`, `${base}.b`]);
    });

    it('only shows events published after the subscription', async () => {
      const bus = await make();
      const t = topic('after');
      await bus.publish(t, 'before');
      await sleep(50);
      const received: unknown[] = [];
      await bus.subscribe(t, (event) => void received.push(event.payload));
      await bus.publish(t, 'after');
      await waitFor(() => received.includes('after'));
      expect(received).toEqual(['after']);
    });

    it('isolates a throwing handler from the others, and keeps calling it', async () => {
      const bus = await make();
      const t = topic('throwing');
      let throwerCalls = 0;
      let rejecterCalls = 0;
      const healthy: unknown[] = [];
      await bus.subscribe(t, () => {
        throwerCalls++;
        throw new Error('handler bug');
      });
      await bus.subscribe(t, async () => {
        rejecterCalls++;
        await Promise.reject(new Error('async handler bug'));
      });
      await bus.subscribe(t, (event) => void healthy.push(event.payload));
      await bus.publish(t, 1);
      await bus.publish(t, 2);
      await waitFor(() => healthy.length === 2 && throwerCalls === 2 && rejecterCalls === 2);
      expect(healthy).toEqual([1, 2]);
    });

    it('stops delivering after Subscription.close(), other subscribers continue', async () => {
      const bus = await make();
      const t = topic('unsubscribe');
      const closed: unknown[] = [];
      const open: unknown[] = [];
      const subscription = await bus.subscribe(t, (event) => void closed.push(event.payload));
      await bus.subscribe(t, (event) => void open.push(event.payload));
      await bus.publish(t, 'first');
      await waitFor(() => closed.length === 1 && open.length === 1);
      await subscription.close();
      await bus.publish(t, 'second');
      await bus.publish(t, 'marker');
      await waitFor(() => open.includes('marker'));
      await sleep(50);
      expect(open).toEqual(['first', 'second', 'marker']);
      expect(closed).toEqual(['first']);
    });

    it('rejects publish and subscribe after close()', async () => {
      const bus = await make();
      await bus.close();
      await expect(bus.publish(topic('closed'), 1)).rejects.toMatchObject({ code: 'INVALID_STATE' });
      await expect(bus.subscribe(topic('closed'), () => undefined)).rejects.toMatchObject({ code: 'INVALID_STATE' });
    });
  });
}
