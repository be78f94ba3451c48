import type { Knex } from 'knex';

/** Resolves to the transaction in progress on this async path, else the pool. Its own file: the store and every repository use it. */
export type DbHandle = () => Knex | Knex.Transaction;
