import type { Knex } from 'knex';
import pg from 'pg';

import type { Exclusive, TickLeadership } from '../../core/ports/tick-leadership';
import type { AdapterLog } from '../kit/adapter-definition';
import { serverConnection } from './migrator';

/** The first key of every tick lock (two-int advisory keys, apart from the migration lock's single bigint key). */
export const TICK_LOCK_SPACE = 0x6170746b;

/** The second key: a 32-bit FNV-1a hash of the tick's name. */
export function tickLockKey(name: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(name, 'utf8')) h = Math.imul(h ^ byte, 0x01000193);
  return h | 0;
}

/** How the lock sessions show in pg_stat_activity (tests find them by it; operators see who leads). */
export const TICK_LOCK_APPLICATION = 'agent-platform tick lock';

/**
 * Leadership of periodic ticks on a Postgres server shared by several workers: a tick runs while its process
 * holds the session advisory lock (TICK_LOCK_SPACE, hash of the name), taken with pg_try_advisory_lock (never
 * waiting) on a connection of its own, outside the pool: the work itself uses the pool, which may have a single
 * connection (DATABASE_POOL_MAX=1) that a held lock must not occupy. The session ends with the tick; should the
 * holder die, its session ends and the server frees the lock at once (a vanished host: within the keepalive
 * bounds set below, about a minute). If the lock session is lost while the work runs, the work goes on (it
 * cannot be taken back) and another worker may start the same work: ticks' writes stay safe under that.
 */
export class AdvisoryLockTickLeadership implements TickLeadership {
  readonly id = 'postgres-advisory-lock';
  private readonly server: pg.ClientConfig;

  /** `db`: the relational store's pool on the server (its connection settings are reused, not its connections). */
  constructor(
    db: Knex,
    private readonly log: AdapterLog = () => undefined,
  ) {
    const server = serverConnection((db.client as { config: Knex.Config }).config.connection);
    if (!server) throw new Error('advisory-lock tick leadership needs a Postgres server (the embedded store leads in process)');
    this.server = server;
  }

  async runExclusive<T>(name: string, work: () => Promise<T>): Promise<Exclusive<T>> {
    const key = tickLockKey(name);
    const session = new pg.Client({
      ...this.server,
      application_name: `${TICK_LOCK_APPLICATION}: ${name}`,
      keepAlive: true,
      connectionTimeoutMillis: this.server.connectionTimeoutMillis ?? 10_000,
    });
    // A connection lost while the work runs is reported here, not thrown at the process.
    session.on('error', (error) => this.log('warn', `tick ${name}: the lock session was lost; the tick's work goes on`, error));
    await session.connect();
    let held = false;
    try {
      // The server drops a session whose host vanished after 30 s idle plus 3 unanswered probes 10 s apart.
      await session.query('SET tcp_keepalives_idle = 30; SET tcp_keepalives_interval = 10; SET tcp_keepalives_count = 3');
      const { rows } = await session.query<{ held: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS held', [TICK_LOCK_SPACE, key]);
      held = rows[0]?.held === true;
      if (!held) return { ran: false };
      return { ran: true, value: await work() };
    } finally {
      // Ending the session frees the lock as well, should the unlock fail.
      if (held) await session.query('SELECT pg_advisory_unlock($1, $2)', [TICK_LOCK_SPACE, key]).catch(() => undefined);
      await session.end().catch(() => undefined);
    }
  }
}
