/**
 * A worker process for the workers-killed suite: consumes `<queue>` from RabbitMQ through the platform's
 * RabbitMqJobQueue (manual acks, so a job in hand when the process is SIGKILLed is redelivered) and applies
 * each job's effect once: the effect row and the ledger increment commit together (one statement), keyed by
 * job id, so a redelivered job changes nothing. Every delivery is logged, to show that redeliveries did happen.
 *
 *   node --import tsx idempotent-worker.ts <amqp-url> <prefix> <queue> <postgres-url>
 */
import pg from 'pg';

import { RabbitMqJobQueue } from '../../../adapters/rabbitmq/rabbitmq.job-queue';

async function main() {
  const [url, prefix, queue, databaseUrl] = process.argv.slice(2) as [string, string, string, string];
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 8 });
  const jobs = new RabbitMqJobQueue({ url, prefix }, { logger: { error: () => undefined, warn: () => undefined } });
  await jobs.consume<{ n: number }>(
    queue,
    async (job) => {
      // One statement, so one implicit transaction and one round trip: log the delivery, insert the effect unless
      // this job already has one, and add to the ledger only what was inserted.
      await pool.query(
        `WITH d AS (INSERT INTO deliveries (job_id, pid, attempt) VALUES ($1, $2, $3)),
              e AS (INSERT INTO effects (job_id, n) VALUES ($1, $4) ON CONFLICT (job_id) DO NOTHING RETURNING n)
         UPDATE ledger SET total = total + (SELECT coalesce(sum(n), 0) FROM e), applied = applied + (SELECT count(*) FROM e)`,
        [job.id, process.pid, job.attempt, job.payload.n],
      );
    },
    { concurrency: 16, maxAttempts: 1000, backoffMs: 50 },
  );
  process.send?.('ready');
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
