import type { NonceRegistry } from '../../core/ports/nonce-registry';
import type { RateLimitStore } from '../../core/ports/rate-limit-store';
import { type AdapterLog, defineAdapter } from '../kit/adapter-definition';
import type { Messaging } from '../kit/port-shapes';

const loggerOf = (log: AdapterLog) => ({
  error: (message: string, extra?: unknown) => log('error', message, extra),
  warn: (message: string, extra?: unknown) => log('warn', message, extra),
});

/** QUEUE=in-process (default): jobs and events inside this process (the `start` role). */
export const inProcessMessaging = defineAdapter<Messaging>({
  id: 'in-process',
  description: 'In this process (one machine, the start role)',
  selectedWhen: [],
  async create(_settings, { log }) {
    const { InProcessJobQueue } = await import('./in-process.job-queue');
    const { InProcessEventBus } = await import('./in-process.event-bus');
    return { queue: new InProcessJobQueue({ logger: loggerOf(log) }), bus: new InProcessEventBus({ logger: loggerOf(log) }) };
  },
});

/** RATE_LIMIT_STORE=in-process (default): counters in this process. */
export const inProcessRateLimitStore = defineAdapter<RateLimitStore>({
  id: 'in-process',
  description: 'In this process (one gateway)',
  selectedWhen: [],
  async create() {
    const { InProcessRateLimitStore } = await import('./in-process.rate-limit-store');
    return new InProcessRateLimitStore();
  },
});

/** NONCE_REGISTRY=in-process (default): one-time signatures remembered by this process. */
export const inProcessNonceRegistry = defineAdapter<NonceRegistry>({
  id: 'in-process',
  description: 'In this process (one api)',
  selectedWhen: [],
  async create() {
    const { InProcessNonceRegistry } = await import('./in-process.nonce-registry');
    return new InProcessNonceRegistry();
  },
});
