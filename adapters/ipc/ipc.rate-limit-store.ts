import type { RateLimitDecision, RateLimitStore } from '../../core/ports/rate-limit-store';
import { InProcessRateLimitStore } from '../memory/in-process.rate-limit-store';
import type { IpcClient } from './ipc-rpc';

/**
 * An HTTP replica's rate limits: counted by the primary process, so every process of one `start` shares each
 * key's window. Never fails open: while the primary cannot be reached, this process counts on its own.
 */
export class IpcRateLimitStore implements RateLimitStore {
  readonly id = 'ipc';
  private readonly fallback = new InProcessRateLimitStore();

  constructor(private readonly primary: IpcClient) {}

  hit(key: string, limit: number, windowSeconds: number, cost?: number): Promise<RateLimitDecision> {
    return this.primary
      .call<RateLimitDecision>('rateLimits.hit', key, limit, windowSeconds, cost ?? 1)
      .catch(() => this.fallback.hit(key, limit, windowSeconds, cost));
  }

  peek(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision> {
    return this.primary
      .call<RateLimitDecision>('rateLimits.peek', key, limit, windowSeconds)
      .catch(() => this.fallback.peek(key, limit, windowSeconds));
  }

  async reset(key: string, windowSeconds: number): Promise<void> {
    await this.fallback.reset(key, windowSeconds);
    await this.primary.call('rateLimits.reset', key, windowSeconds).catch(() => undefined); // the primary is gone: nothing left to reset there
  }

  close(): Promise<void> {
    return this.fallback.close();
  }
}
