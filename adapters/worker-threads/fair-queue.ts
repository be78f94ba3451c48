/**
 * The heavy-work pool's waiting room: tasks wait per tenant (an organization) and, inside a tenant, per party
 * (the organization's own work, or one anonymous visitor of its public agents), and are taken round-robin at
 * both levels, so a tenant's backlog delays another tenant's next task by one task at most. A tenant holds at
 * most `share` threads while another tenant is active (has work waiting or running, or had some in the last
 * `lingerMs`: a pipeline's next step is usually on its way); alone, it may use every thread. Pure bookkeeping:
 * the pool starts what `take` returns and reports back with `finished`.
 */

export interface FairTask {
  /** Whose share the task counts against ('' for untagged work). */
  tenant: string;
  /** Who inside the tenant (round-robin among them); '' for the tenant's own work. */
  party: string;
}

export interface FairQueueOptions {
  /** Threads one tenant may hold while another is active. */
  share: number;
  /** How long a tenant counts as active after its last task was submitted or finished. */
  lingerMs: number;
  now?: () => number;
}

/** Per tenant: tasks started and thread time used (ms), since the pool started. */
export interface TenantUsage {
  tenant: string;
  running: number;
  queued: number;
  tasks: number;
  threadMs: number;
}

interface Tenant<T> {
  /** Waiting tasks by party, in the parties' turn order. */
  parties: Map<string, T[]>;
  queued: number;
  running: number;
  lastSeen: number;
  tasks: number;
  threadMs: number;
}

export class FairQueue<T extends FairTask> {
  /** In turn order: the tenant served last goes to the back. */
  private readonly tenants = new Map<string, Tenant<T>>();
  private readonly now: () => number;
  private waiting = 0;

  constructor(private readonly options: FairQueueOptions) {
    this.now = options.now ?? (() => performance.now());
  }

  get size(): number {
    return this.waiting;
  }

  push(task: T): void {
    const tenant = this.tenant(task.tenant);
    tenant.lastSeen = this.now();
    const queue = tenant.parties.get(task.party);
    if (queue) queue.push(task);
    else tenant.parties.set(task.party, [task]);
    tenant.queued++;
    this.waiting++;
  }

  /**
   * The next task to start (counted as running), or undefined: nothing waits, or every tenant that waits holds
   * its share while another is active (`wakeInMs` says when a lingering one stops counting).
   */
  take(): T | undefined {
    const now = this.now();
    for (const [key, tenant] of this.tenants) {
      if (tenant.queued === 0) continue;
      if (tenant.running >= this.options.share && this.othersActive(key, now)) continue;
      const [party, queue] = tenant.parties.entries().next().value as [string, T[]];
      const task = queue.shift()!;
      tenant.parties.delete(party);
      if (queue.length) tenant.parties.set(party, queue); // to the back of the tenant's parties
      tenant.queued--;
      tenant.running++;
      tenant.tasks++;
      this.waiting--;
      this.tenants.delete(key);
      this.tenants.set(key, tenant); // to the back of the tenants
      return task;
    }
    return undefined;
  }

  /** A started task ended (or failed) after holding its thread `threadMs`. */
  finished(task: FairTask, threadMs: number): void {
    const tenant = this.tenant(task.tenant);
    tenant.running = Math.max(0, tenant.running - 1);
    tenant.threadMs += threadMs;
    tenant.lastSeen = this.now();
  }

  /** Until a lingering tenant stops holding the others to their share (ms), or null when none does. */
  wakeInMs(): number | null {
    const now = this.now();
    let soonest: number | null = null;
    for (const tenant of this.tenants.values()) {
      if (tenant.queued || tenant.running) continue;
      const left = tenant.lastSeen + this.options.lingerMs - now;
      if (left > 0 && (soonest === null || left < soonest)) soonest = left;
    }
    return soonest;
  }

  /** Removes every waiting task (the pool is closing). */
  drain(): T[] {
    const all: T[] = [];
    for (const tenant of this.tenants.values()) {
      for (const queue of tenant.parties.values()) all.push(...queue);
      tenant.parties.clear();
      tenant.queued = 0;
    }
    this.waiting = 0;
    return all;
  }

  usage(): TenantUsage[] {
    return [...this.tenants].map(([tenant, t]) => ({ tenant, running: t.running, queued: t.queued, tasks: t.tasks, threadMs: t.threadMs }));
  }

  private othersActive(key: string, now: number): boolean {
    for (const [other, tenant] of this.tenants) {
      if (other === key) continue;
      if (tenant.queued || tenant.running || now - tenant.lastSeen < this.options.lingerMs) return true;
    }
    return false;
  }

  private tenant(key: string): Tenant<T> {
    let tenant = this.tenants.get(key);
    if (!tenant) {
      tenant = { parties: new Map(), queued: 0, running: 0, lastSeen: this.now(), tasks: 0, threadMs: 0 };
      this.tenants.set(key, tenant);
    }
    return tenant;
  }
}
