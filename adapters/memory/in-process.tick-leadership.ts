import type { Exclusive, TickLeadership } from '../../core/ports/tick-leadership';

/**
 * The embedded store's leadership: its database belongs to one process (the data folder claim), so the only
 * concurrency to exclude is this process's own, two runs of one name overlapping.
 */
export class InProcessTickLeadership implements TickLeadership {
  readonly id = 'in-process';
  private readonly running = new Set<string>();

  async runExclusive<T>(name: string, work: () => Promise<T>): Promise<Exclusive<T>> {
    if (this.running.has(name)) return { ran: false };
    this.running.add(name);
    try {
      return { ran: true, value: await work() };
    } finally {
      this.running.delete(name);
    }
  }
}
