/**
 * HEAVY_WORK: where parsing of untrusted files, chunking, summaries and offline embeddings run. The extraction
 * bounds apply to both adapters; the pool's size, time and memory bounds to worker threads only.
 */
import { cpus } from 'node:os';

import type { HeavyWork } from '../../core/ports/heavy-work';
import { defineAdapter, setting, type Settings } from '../kit/adapter-definition';
import type { HeavyTaskSettings } from './heavy-tasks';

const MIB = 1024 * 1024;

const EXTRACTION_SETTINGS = {
  EXTRACTION_MAX_UNPACKED_BYTES: {
    type: 'integer',
    minimum: 1024,
    default: 16 * MIB,
    description: 'Largest unpacked size of one compressed part of an uploaded file (a DOCX entry, a PDF stream); all parts together get 4x',
  },
  EXTRACTION_MAX_TEXT_CHARS: {
    type: 'integer',
    minimum: 1,
    default: 16 * MIB,
    description: 'Longest text extracted from one file; longer fails it (extract-text answers 413)',
  },
} as const;

function taskSettings(settings: Settings): HeavyTaskSettings {
  const part = setting.number(settings, 'EXTRACTION_MAX_UNPACKED_BYTES') ?? 16 * MIB;
  return {
    limits: {
      maxPartBytes: part,
      maxTotalBytes: part * 4,
      maxTextChars: setting.number(settings, 'EXTRACTION_MAX_TEXT_CHARS') ?? 16 * MIB,
    },
  };
}

/** Two threads on a small machine, one per core on a bigger one (leaving one for requests). */
const defaultThreads = () => Math.max(2, Math.min(8, cpus().length - 1));

export const workerThreadsHeavyWork = defineAdapter<HeavyWork>({
  id: 'worker-threads',
  description: 'A pool of worker threads, each task bounded in time, memory and unpacked size',
  selectedWhen: [],
  settings: {
    ...EXTRACTION_SETTINGS,
    HEAVY_WORK_THREADS: { type: 'integer', minimum: 1, maximum: 64, description: 'Worker threads (default: cores - 1, at least 2)' },
    HEAVY_WORK_TIMEOUT_MS: {
      type: 'integer',
      minimum: 100,
      default: 30000,
      description: 'Longest run of one task before its thread is stopped',
    },
    HEAVY_WORK_MEMORY_MB: { type: 'integer', minimum: 32, default: 512, description: 'Heap of one worker thread (V8 old generation)' },
    HEAVY_WORK_TENANT_SHARE: {
      type: 'integer',
      minimum: 1,
      maximum: 64,
      description:
        "Threads one organization (its ingestion and its public agents' attachments together) may hold while another has work waiting or running (default: half the threads, rounded up)",
    },
    HEAVY_WORK_NICE: {
      type: 'integer',
      minimum: 0,
      maximum: 19,
      default: 15,
      description: 'Nice value of the worker threads (Linux): under CPU contention requests, then the embedded database, run first',
    },
  },
  async create(settings, { log }) {
    const { WorkerThreadsHeavyWork } = await import('./worker-threads.heavy-work');
    return new WorkerThreadsHeavyWork(
      taskSettings(settings),
      {
        threads: setting.number(settings, 'HEAVY_WORK_THREADS') ?? defaultThreads(),
        timeoutMs: setting.number(settings, 'HEAVY_WORK_TIMEOUT_MS') ?? 30000,
        memoryMb: setting.number(settings, 'HEAVY_WORK_MEMORY_MB') ?? 512,
        nice: setting.number(settings, 'HEAVY_WORK_NICE') ?? 15,
        tenantShare: setting.number(settings, 'HEAVY_WORK_TENANT_SHARE'),
      },
      log,
    );
  },
});

export const inProcessHeavyWork = defineAdapter<HeavyWork>({
  id: 'in-process',
  description: 'Inline on the request loop, no time or memory bound (tests and debugging only)',
  settings: EXTRACTION_SETTINGS,
  async create(settings) {
    const { InProcessHeavyWork } = await import('./worker-threads.heavy-work');
    return new InProcessHeavyWork(taskSettings(settings));
  },
});
