import { AsyncLocalStorage } from 'node:async_hooks';

import type { Knex } from 'knex';

import type { Repositories } from '../../core/ports/repositories';
import type { Store } from '../../core/ports/store';
import { createRepositories } from './repositories';

export class KnexStore implements Store {
  private readonly current = new AsyncLocalStorage<Knex.Transaction>();
  readonly repos: Repositories;

  constructor(private readonly db: Knex) {
    this.repos = createRepositories(() => this.current.getStore() ?? this.db);
  }

  transaction<T>(work: (repos: Repositories) => Promise<T>): Promise<T> {
    const open = this.current.getStore();
    if (open) return work(this.repos);
    return this.db.transaction((trx) => this.current.run(trx, () => work(this.repos)));
  }
}
