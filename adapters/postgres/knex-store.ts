import { AsyncLocalStorage } from 'node:async_hooks';

import type { Knex } from 'knex';

import type { Repositories } from '../../core/ports/repositories';
import type { Store } from '../../core/ports/store';
import { type IdentityCache, withIdentityCache } from './identity-cache';
import { createRepositories } from './repositories';

interface OpenTransaction {
  trx: Knex.Transaction;
  /** Run when the outermost transaction ends (committed or rolled back). */
  after: (() => void)[];
  /** Run only when the outermost transaction committed. */
  committed: (() => unknown)[];
}

export interface KnexStoreOptions {
  /** Serves the identity reads of every request from memory; the repositories' writes invalidate it. */
  identityCache?: IdentityCache;
  /**
   * Long reads (the contacts export) hold a server-side cursor on a connection of their own. Only for a real
   * Postgres server: the embedded store has one session, which a cursor would hold for the whole read.
   */
  cursors?: boolean;
}

export class KnexStore implements Store {
  private readonly current = new AsyncLocalStorage<OpenTransaction>();
  readonly repos: Repositories;
  readonly identityCache?: IdentityCache;

  constructor(
    private readonly db: Knex,
    options: KnexStoreOptions = {},
  ) {
    this.identityCache = options.identityCache;
    // Work for when the transaction open on this async path ends (nothing outside one): caches invalidated at a
    // write are invalidated again then, so a read between the statement and the commit cannot keep the old row.
    const after = (work: () => void) => void this.current.getStore()?.after.push(work);
    const repos = createRepositories(() => this.current.getStore()?.trx ?? this.db, {
      cursors: options.cursors ?? false,
      afterTransaction: after,
    });
    this.repos = options.identityCache
      ? withIdentityCache(repos, options.identityCache, after, () => this.current.getStore() !== undefined)
      : repos;
  }

  async transaction<T>(work: (repos: Repositories) => Promise<T>): Promise<T> {
    const open = this.current.getStore();
    if (open) return work(this.repos);
    const after: (() => void)[] = [];
    const committed: (() => unknown)[] = [];
    let result: T;
    try {
      result = await this.db.transaction((trx) => this.current.run({ trx, after, committed }, () => work(this.repos)));
    } finally {
      for (const run of after) run();
    }
    for (const run of committed) runDetached(run);
    return result;
  }

  afterCommit(work: () => unknown): void {
    const open = this.current.getStore();
    if (open) open.committed.push(work);
    else runDetached(work);
  }
}

/** Outside any transaction's async context; a failure is the work's own business, never an unhandled rejection. */
function runDetached(work: () => unknown): void {
  void Promise.resolve()
    .then(work)
    .catch(() => undefined);
}
