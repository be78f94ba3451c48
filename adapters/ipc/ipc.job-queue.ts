import type { ConsumeOptions, EnqueueOptions, Job, JobHandler, JobQueue, Subscription } from '../../core/ports/job-queue';
import type { IpcClient } from './ipc-rpc';

/** An HTTP replica's queue: jobs go to the primary process, whose workers run them. A replica runs none. */
export class IpcJobQueue implements JobQueue {
  readonly id = 'ipc';

  constructor(private readonly primary: IpcClient) {}

  enqueue<T>(queue: string, payload: T, options?: EnqueueOptions): Promise<string> {
    return this.primary.call<string>('queue.enqueue', queue, payload, options);
  }

  consume<T>(_queue: string, _handler: JobHandler<T>, _options?: ConsumeOptions): Promise<Subscription> {
    return Promise.reject(new Error('an HTTP replica runs no workers; the primary process consumes the queues'));
  }

  deadLetters(queue: string): Promise<Job[]> {
    return this.primary.call<Job[]>('queue.deadLetters', queue);
  }

  depths(): Promise<Record<string, number>> {
    return this.primary.call<Record<string, number>>('queue.depths');
  }

  async close(): Promise<void> {}
}
