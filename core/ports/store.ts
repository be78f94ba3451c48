import type { Repositories } from './repositories';

/**
 * Transactional access to the repositories. Inside `transaction`, every repository call (through the
 * bundle passed in or through `repos`) joins the same transaction, so a use case never deadlocks on a
 * one-connection pool and never half-writes.
 */
export interface Store {
  readonly repos: Repositories;
  transaction<T>(work: (repos: Repositories) => Promise<T>): Promise<T>;
  /**
   * Runs `work` once the transaction open on this async path has committed (never after a rollback), or at once
   * when none is open: for messages about rows the transaction writes (a queue consumer must find them).
   * `work` handles its own errors.
   */
  afterCommit(work: () => unknown): void;
}
export const STORE = Symbol.for('Store');
