import { join } from 'node:path';

import type { HeavyTaskName, HeavyTasks, HeavyWork, WorkAttribution } from '../../core/ports/heavy-work';
import { heavyTaskHandlers, type HeavyTaskSettings } from './heavy-tasks';
import { WorkerPool, type WorkerPoolOptions } from './worker-pool';

export interface PoolSizing {
  threads: number;
  timeoutMs: number;
  memoryMb: number;
  /** The threads' nice value (Linux); 0: the process priority. */
  nice?: number;
  /** Threads one tenant may hold while another has work (default: half, rounded up). */
  tenantShare?: number;
  /** How long a tenant counts as having work after its last task (ms, default 1000). */
  tenantLingerMs?: number;
}

/** HEAVY_WORK=worker-threads (default): every task in a bounded worker thread. */
export class WorkerThreadsHeavyWork implements HeavyWork {
  readonly id = 'worker-threads';
  private readonly pool: WorkerPool;

  constructor(settings: HeavyTaskSettings, sizing: PoolSizing, log?: WorkerPoolOptions['log']) {
    // the entry next to this file, in whichever form this file runs (.ts under tsx and jest, .js once built)
    const entry = join(__dirname, `heavy-work.worker${__filename.endsWith('.ts') ? '.ts' : '.js'}`);
    this.pool = new WorkerPool({ entry, ...sizing, workerData: settings, log });
  }

  run<K extends HeavyTaskName>(task: K, input: HeavyTasks[K]['input'], work?: WorkAttribution): Promise<HeavyTasks[K]['output']> {
    return this.pool.run(task, input, work) as Promise<HeavyTasks[K]['output']>;
  }

  stats() {
    return this.pool.stats();
  }

  usage() {
    return this.pool.usage();
  }

  close() {
    return this.pool.close();
  }
}

/**
 * HEAVY_WORK=in-process: the same tasks inline, on the caller's event loop, with the unpacked-size and output
 * bounds but no time or memory bound. For tests and debugging only: a large file stalls every request.
 */
export class InProcessHeavyWork implements HeavyWork {
  readonly id = 'in-process';
  private readonly handlers;
  private running = 0;

  constructor(settings: HeavyTaskSettings) {
    this.handlers = heavyTaskHandlers(settings);
  }

  async run<K extends HeavyTaskName>(task: K, input: HeavyTasks[K]['input'], work?: WorkAttribution): Promise<HeavyTasks[K]['output']> {
    this.running++;
    const started = performance.now();
    try {
      return await (this.handlers[task] as (input: HeavyTasks[K]['input']) => Promise<HeavyTasks[K]['output']>)(input);
    } finally {
      this.running--;
      work?.charge?.(performance.now() - started);
    }
  }

  stats() {
    return { threads: 0, running: this.running, queued: 0 };
  }

  async close() {}
}
