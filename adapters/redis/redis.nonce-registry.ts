import type { Redis } from 'ioredis';

import type { NonceRegistry } from '../../core/ports/nonce-registry';
import { InProcessNonceRegistry } from '../memory/in-process.nonce-registry';

export interface RedisNonceRegistryOptions {
  url?: string;
  prefix?: string;
  /** Injected client; the registry then does not close it. */
  client?: Redis;
  /** Told when Redis fails and this process's own registry answers instead. */
  onFallback?: (err: unknown) => void;
}

/**
 * SET NX PX: the first replica to claim a nonce wins, every other claim within the TTL is a replay. While
 * Redis is unreachable this process's own registry answers (a replay to the same replica is still refused).
 */
export class RedisNonceRegistry implements NonceRegistry {
  readonly id = 'redis';
  private readonly client: Redis;
  private readonly owns: boolean;
  private readonly prefix: string;
  private readonly local = new InProcessNonceRegistry();

  constructor(private readonly options: RedisNonceRegistryOptions) {
    this.prefix = options.prefix ?? 'nonce:';
    if (options.client) {
      this.client = options.client;
      this.owns = false;
    } else {
      if (!options.url) throw new Error('RedisNonceRegistry needs a url or a client');
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { Redis: RedisClient } = require('ioredis') as typeof import('ioredis');
      this.client = new RedisClient(options.url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2000 });
      this.client.on('error', (err) => options.onFallback?.(err));
      this.owns = true;
    }
  }

  async claim(nonce: string, ttlMs: number): Promise<boolean> {
    const fresh = this.local.claimSync(nonce, ttlMs);
    if (!fresh) return false;
    try {
      const reply = await this.client.set(`${this.prefix}${nonce}`, '1', 'PX', Math.max(1, Math.ceil(ttlMs)), 'NX');
      return reply === 'OK';
    } catch (err) {
      this.options.onFallback?.(err);
      return true; // this process had not seen it; Redis cannot be asked
    }
  }

  async close(): Promise<void> {
    await this.local.close();
    if (this.owns) await this.client.quit().catch(() => this.client.disconnect());
  }
}
