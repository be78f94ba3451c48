/**
 * Named (prepared) statements for the search path. Planning the hybrid statement cost about as much CPU as
 * running it on the embedded store (3-6 ms of a 17 ms search at 10k chunks), so each statement text is
 * prepared once per database session and run with a generic plan (`plan_cache_mode = force_generic_plan`,
 * set by the caller for its transaction).
 *
 * The pg driver parses a named statement once per client. PGlite runs every client on its one session, where
 * a name one client prepared already exists for the others (a second Parse would fail): a client's first use
 * of a name looks it up in `pg_prepared_statements` and, when the session has it, marks it parsed for the
 * driver. On a server every client is its own session and the lookup finds nothing. Names come from a hash of
 * the statement text, so one name never stands for two texts.
 */
import { createHash } from 'node:crypto';

import type { Knex } from 'knex';

/** The driver's per-client bookkeeping of parsed statements (pg's Connection.parsedStatements). */
interface PgClient {
  connection?: { parsedStatements?: Record<string, string> };
}

const known = new WeakMap<object, Set<string>>();
const names = new Map<string, string>();

export function statementName(prefix: string, sql: string): string {
  let name = names.get(sql);
  if (!name) {
    name = `${prefix}_${createHash('sha1').update(sql).digest('hex').slice(0, 16)}`;
    names.set(sql, name);
  }
  return name;
}

/**
 * Runs `sql` (knex named bindings) as the prepared statement `name` on the transaction's connection. Inside a
 * transaction, so on PGlite no other client runs between the lookup and the Parse.
 */
export async function runPrepared(
  trx: Knex.Transaction,
  name: string,
  sql: string,
  bindings: Record<string, Knex.RawBinding>,
): Promise<{ rows: Record<string, unknown>[] }> {
  const client = (await trx.client.acquireConnection()) as PgClient;
  const parsed = client.connection?.parsedStatements;
  if (!parsed) return trx.raw(sql, bindings); // not the pg driver: plain statements
  let seen = known.get(client);
  if (!seen) known.set(client, (seen = new Set()));
  if (!seen.has(name) && parsed[name] === undefined) {
    const existing = await trx.raw('SELECT 1 FROM pg_prepared_statements WHERE name = ?', [name]);
    if (existing.rows.length) parsed[name] = trx.raw(sql, bindings).toSQL().toNative().sql;
  }
  seen.add(name);
  return trx.raw(sql, bindings).options({ name });
}
