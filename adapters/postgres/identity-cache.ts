import type { ApiKey } from '../../core/api-keys/api-key';
import type { OrgRole } from '../../core/identity/roles';
import type { User } from '../../core/identity/user';
import type { Repositories } from '../../core/ports/repositories';

type UserWithRole = { user: User; role: OrgRole | null } | null;

/** What one process tells the others (through the event bus) to forget. */
export type IdentityInvalidation = { kind: 'user'; userId: string } | { kind: 'apiKey'; id: string };

export interface IdentityCacheOptions {
  /** Safety net on top of the explicit invalidations (a write made by a process that is not on the bus). */
  ttlMs: number;
  maxEntries?: number;
}

interface Entry<T> {
  value: T;
  /** `value`, already resolved: a hit hands this out instead of making a promise (each costs its hooks). */
  settled: Promise<T>;
  expires: number;
}

const entryOf = <T>(value: T, expires: number): Entry<T> => ({ value, settled: Promise.resolve(value), expires });

/**
 * The hot identity reads of every request (the caller's user with their role, the user row and their
 * memberships that /api/auth/me answers with, an API key by its hash),
 * cached in this process. The repositories' own writes invalidate it (users.update/bumpTokenVersion,
 * memberships.add/updateRole/remove, apiKeys.create/revoke): one place, whatever use case writes. A write
 * inside a transaction invalidates again after the transaction ends, so a read made before the commit
 * cannot put the old row back. Other processes learn of it through `onInvalidate` (the event bus).
 */
export class IdentityCache {
  /** Keyed `userId|what`: everything read about one user goes with one invalidation. */
  private readonly users = new Map<string, Entry<unknown>>();
  private readonly keys = new Map<string, Entry<ApiKey | null>>();
  private readonly maxEntries: number;
  /** Tells the other processes (wired to the event bus once it exists). */
  onInvalidate: (message: IdentityInvalidation) => void = () => undefined;

  constructor(private readonly options: IdentityCacheOptions) {
    this.maxEntries = options.maxEntries ?? 50_000;
  }

  userWithRole(userId: string, organizationId: string | null, load: () => Promise<UserWithRole>): Promise<UserWithRole> {
    return this.read(this.users as Map<string, Entry<UserWithRole>>, `${userId}|role|${organizationId ?? ''}`, load);
  }

  /** Another read about one user (the user row, their memberships), forgotten with the user. */
  aboutUser<T>(userId: string, what: string, load: () => Promise<T>): Promise<T> {
    return this.read(this.users as Map<string, Entry<T>>, `${userId}|${what}`, load);
  }

  apiKey(hash: string, load: () => Promise<ApiKey | null>): Promise<ApiKey | null> {
    return this.read(this.keys, hash, load);
  }

  /** Forgets locally (from a peer's message, or our own write) without telling anyone. */
  apply(message: IdentityInvalidation): void {
    if (message.kind === 'user') {
      for (const k of this.users.keys()) if (k.startsWith(`${message.userId}|`)) this.users.delete(k);
    } else {
      for (const [k, e] of this.keys) if (e.value?.id === message.id) this.keys.delete(k);
    }
  }

  invalidate(message: IdentityInvalidation): void {
    this.apply(message);
    this.onInvalidate(message);
  }

  /** Keeps a cached key's advisory lastUsedAt in step, so it is not written on every request. */
  touched(id: string, at: string): void {
    for (const [k, e] of this.keys) if (e.value?.id === id) this.keys.set(k, entryOf({ ...e.value, lastUsedAt: at }, e.expires));
  }

  /** Not async: a hit returns the entry's settled promise, so the hot path makes none of its own. */
  private read<T>(map: Map<string, Entry<T>>, key: string, load: () => Promise<T>): Promise<T> {
    const hit = map.get(key);
    const now = Date.now();
    if (hit && hit.expires > now) return hit.settled;
    return this.fill(map, key, load, now);
  }

  private async fill<T>(map: Map<string, Entry<T>>, key: string, load: () => Promise<T>, now: number): Promise<T> {
    const value = await load();
    if (value === null) return value; // unknown ids and hashes are not remembered: a later create needs no invalidation
    if (map.size >= this.maxEntries) map.clear(); // crude bound: a full cache restarts cold
    map.set(key, entryOf(value, now + this.options.ttlMs));
    return value;
  }
}

/**
 * The repositories with the identity reads served from `cache` and the writes that change them invalidating
 * it. `afterTransaction` runs a callback when the current transaction ends (nothing outside one);
 * `inTransaction` says whether the caller is inside one.
 */
export function withIdentityCache(
  repos: Repositories,
  cache: IdentityCache,
  afterTransaction: (work: () => void) => void,
  inTransaction: () => boolean,
): Repositories {
  // Reads inside a transaction go to it (they may see its uncommitted writes) and are not remembered.
  // `load` is written inline at each call, not as a named constant: tsx (esbuild's keepNames) would give every
  // request's closure its name with a defineProperty, which costs more than the cached read.
  const cached = <T>(read: (c: IdentityCache, load: () => Promise<T>) => Promise<T>, load: () => Promise<T>) =>
    inTransaction() ? load() : read(cache, load);
  const forget = (message: IdentityInvalidation) => {
    cache.invalidate(message);
    afterTransaction(() => cache.invalidate(message));
  };
  const forgetUser = (userId: string) => forget({ kind: 'user', userId });
  const { users, memberships, apiKeys } = repos;
  return {
    ...repos,
    users: Object.assign(Object.create(users) as typeof users, {
      findWithRole: (id: string, org: string | null) =>
        cached(
          (c, load) => c.userWithRole(id, org, load),
          () => users.findWithRole(id, org),
        ),
      findById: (id: string) =>
        cached(
          (c, load) => c.aboutUser(id, 'user', load),
          () => users.findById(id),
        ),
      update: async (id: string, patch: Parameters<typeof users.update>[1], at: string) => {
        await users.update(id, patch, at);
        forgetUser(id);
      },
      bumpTokenVersion: async (id: string, at: string) => {
        const version = await users.bumpTokenVersion(id, at);
        forgetUser(id);
        return version;
      },
    }),
    memberships: Object.assign(Object.create(memberships) as typeof memberships, {
      listForUser: (userId: string) =>
        cached(
          (c, load) => c.aboutUser(userId, 'memberships', load),
          () => memberships.listForUser(userId),
        ),
      add: async (m: Parameters<typeof memberships.add>[0]) => {
        await memberships.add(m);
        forgetUser(m.userId);
      },
      updateRole: async (org: string, userId: string, role: OrgRole) => {
        await memberships.updateRole(org, userId, role);
        forgetUser(userId);
      },
      remove: async (org: string, userId: string) => {
        await memberships.remove(org, userId);
        forgetUser(userId);
      },
    }),
    apiKeys: Object.assign(Object.create(apiKeys) as typeof apiKeys, {
      findBySecretHash: (hash: string) =>
        cached(
          (c, load) => c.apiKey(hash, load),
          () => apiKeys.findBySecretHash(hash),
        ),
      revoke: async (org: string, id: string, at: string) => {
        const done = await apiKeys.revoke(org, id, at);
        forget({ kind: 'apiKey', id });
        return done;
      },
      create: async (key: ApiKey) => {
        await apiKeys.create(key);
        forget({ kind: 'apiKey', id: key.id });
      },
      touch: async (id: string, at: string) => {
        await apiKeys.touch(id, at);
        cache.touched(id, at);
      },
    }),
  };
}

const TOPIC = 'identity.invalidate';

/** Shares the invalidations with every process on the bus (split roles on RabbitMQ). */
export async function shareInvalidations(
  cache: IdentityCache,
  bus: {
    publish<T>(topic: string, payload: T): Promise<void>;
    subscribe<T>(topic: string, handler: (e: { payload: T }) => void): Promise<unknown>;
  },
  onError: (error: unknown) => void,
): Promise<void> {
  await bus.subscribe<IdentityInvalidation>(TOPIC, (e) => cache.apply(e.payload));
  cache.onInvalidate = (message) => void bus.publish(TOPIC, message).catch(onError);
}
