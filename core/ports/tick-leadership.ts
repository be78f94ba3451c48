/**
 * Periodic work of the worker role that must not run on two workers at once (the analytics rollup and priors,
 * the source scheduler, the webhook relay, the build sweep): every worker keeps its timer, and at each tick the
 * work runs where no other holder is running it at that moment. Never waits for the holder: a tick that is not
 * the one to run returns at once and the next tick tries again, so a worker that dies hands the work on.
 */
export type Exclusive<T> = { ran: true; value: T } | { ran: false; value?: undefined };

export interface TickLeadership {
  readonly id: string;
  /**
   * Runs `work` unless `name` is being run by another holder (another worker, or this one still at it): then
   * `{ ran: false }` without running it. `work`'s failure is rethrown, and the name is free again either way.
   */
  runExclusive<T>(name: string, work: () => Promise<T>): Promise<Exclusive<T>>;
}
export const TICK_LEADERSHIP = Symbol.for('TickLeadership');
