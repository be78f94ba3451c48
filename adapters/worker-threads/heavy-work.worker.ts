/** Entry of a heavy-work thread: runs the tasks the pool posts, one at a time, and posts each outcome back. */
import { parentPort, workerData } from 'node:worker_threads';

import type { HeavyTaskName } from '../../core/ports/heavy-work';
import { isDomainError } from '../../core/shared/errors';
import { kernelThreadId } from '../system/thread-priority';
import { heavyTaskHandlers, type HeavyTaskSettings, transferablesOf } from './heavy-tasks';
import type { WorkerReply } from './worker-pool';

const handlers = heavyTaskHandlers(workerData as HeavyTaskSettings);
const port = parentPort!;

function failure(error: unknown): Extract<WorkerReply, { error: unknown }>['error'] {
  if (isDomainError(error)) return { domain: true, code: error.code, message: error.message, details: error.details };
  return { domain: false, message: error instanceof Error ? error.message : String(error) };
}

port.on('message', async ({ id, name, input }: { id: number; name: HeavyTaskName; input: never }) => {
  try {
    const handler = handlers[name] as (input: unknown) => Promise<unknown>;
    if (!handler) throw new Error(`Unknown heavy task ${name}`);
    const output = await handler(input);
    port.postMessage({ id, output } satisfies WorkerReply, transferablesOf(output));
  } catch (error) {
    port.postMessage({ id, error: failure(error) } satisfies WorkerReply);
  }
});
port.postMessage({ ready: true, tid: kernelThreadId() });
