import { definePort } from '../../adapters/kit/port-registry';
import { inProcessHeavyWork, workerThreadsHeavyWork } from '../../adapters/worker-threads/worker-threads.adapters';
import { HEAVY_WORK, type HeavyWork } from '../../core/ports/heavy-work';
import { singleAdapterPort } from './platform-port';

export const heavyWorkPort = singleAdapterPort(
  definePort<HeavyWork>({
    key: 'HEAVY_WORK',
    description: 'Where file parsing, chunking, summaries and offline embeddings run (off the request loop)',
    token: HEAVY_WORK,
    adapters: [workerThreadsHeavyWork, inProcessHeavyWork],
  }),
  HEAVY_WORK,
);
