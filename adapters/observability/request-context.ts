import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What a log line should say about the work it belongs to: the request that caused it and, inside a job,
 * the job. Set by the api's request middleware and by the job-queue wrapper around every handler; read by
 * the logger (every line inherits it) and by `enqueue` (a job inherits its request's id).
 */
export interface RequestContext {
  requestId?: string;
  jobId?: string;
  queue?: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

export function currentRequestContext(): RequestContext | undefined {
  return storage.getStore();
}

export function runWithRequestContext<T>(context: RequestContext, fn: () => T): T {
  return storage.run(context, fn);
}
