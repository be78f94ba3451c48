import type { Subscription } from '../core/ports/job-queue';
import type { Infrastructure } from './infrastructure';

/**
 * A background consumer: one queue, one core use case. `S` is the part of the Services it needs (named
 * structurally, so an area's file does not import app/services.ts, which imports the areas).
 */
export interface Consumer<S> {
  queue: string;
  start(infra: Infrastructure, services: S): Promise<Subscription>;
}
