import type { Subscription } from './job-queue';

export interface BusEvent<T = unknown> {
  topic: string;
  payload: T;
  emittedAt: string;
}

/** Fan-out notifications (build progress, operator presence). Subscribers only see events published after they subscribe. */
export interface EventBus {
  readonly id: string;
  publish<T>(topic: string, payload: T): Promise<void>;
  subscribe<T>(topic: string, handler: (event: BusEvent<T>) => void): Promise<Subscription>;
  close(): Promise<void>;
}
export const EVENT_BUS = Symbol.for('EventBus');
