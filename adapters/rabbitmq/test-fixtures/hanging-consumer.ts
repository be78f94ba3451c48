/**
 * Child process for the killed-worker test. It consumes one queue with the real adapter (concurrency 2);
 * its handler records "started", applies the job's effect to the idempotent file sink when the payload
 * says `effectBeforeCrash`, records "hanging", then hangs without returning, so the message stays unacked until the test
 * SIGKILLs this process.
 *
 * Env: AMQP_URL, PREFIX, QUEUE, WORK_DIR.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';

import { RabbitMqJobQueue } from '../rabbitmq.job-queue';
import { applyEffectOnce } from './idempotent-sink';

async function main(): Promise<void> {
  const { AMQP_URL, PREFIX, QUEUE, WORK_DIR } = process.env;
  if (!AMQP_URL || !PREFIX || !QUEUE || !WORK_DIR) throw new Error('AMQP_URL, PREFIX, QUEUE and WORK_DIR are required');
  const queue = new RabbitMqJobQueue({ url: AMQP_URL, prefix: PREFIX });
  await queue.consume<{ effectBeforeCrash?: boolean }>(
    QUEUE,
    async (job) => {
      appendFileSync(join(WORK_DIR, 'started.log'), `${job.id} ${job.attempt} ${process.pid}\n`);
      if (job.payload.effectBeforeCrash) applyEffectOnce(WORK_DIR, job.id, 'child');
      appendFileSync(join(WORK_DIR, 'hanging.log'), `${job.id}\n`);
      await new Promise<never>(() => undefined); // hang: never ack
    },
    { concurrency: 2 },
  );
  process.stdout.write('ready\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
