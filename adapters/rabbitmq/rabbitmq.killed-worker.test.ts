import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { waitFor } from '../../test/conformance/job-queue.conformance';
import { RabbitMqJobQueue } from './rabbitmq.job-queue';
import { AMQP_URL, deleteTopology, describeReal, messageCount, quietLogger, uniquePrefix } from './test-fixtures/broker';
import { applyEffectOnce } from './test-fixtures/idempotent-sink';

const readLines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean) : []);

describeReal('RabbitMqJobQueue: a worker killed mid-job', () => {
  const prefix = uniquePrefix('killed');
  const queueName = 'work';
  let workDir: string;
  let child: ChildProcess | undefined;
  let queue: RabbitMqJobQueue | undefined;

  beforeAll(() => {
    workDir = mkdtempSync(join(tmpdir(), 'killed-worker-'));
  });
  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await queue?.close();
    await deleteTopology(queue?.declaredQueues ?? [`${prefix}.${queueName}`, `${prefix}.${queueName}.dead`]);
    rmSync(workDir, { recursive: true, force: true });
  });

  it('has its unacked jobs redelivered to another consumer, which completes them once', async () => {
    queue = new RabbitMqJobQueue({ url: AMQP_URL, prefix }, { logger: quietLogger });
    // Crash before the effect, and crash after the effect but before the ack.
    await queue.enqueue(queueName, { effectBeforeCrash: false }, { jobId: 'crash-before-effect' });
    await queue.enqueue(queueName, { effectBeforeCrash: true }, { jobId: 'crash-after-effect' });

    let stderr = '';
    child = spawn(process.execPath, ['-r', 'tsx/cjs', join(__dirname, 'test-fixtures', 'hanging-consumer.ts')], {
      cwd: join(__dirname, '..', '..'),
      env: { ...process.env, AMQP_URL, PREFIX: prefix, QUEUE: queueName, WORK_DIR: workDir, NODE_OPTIONS: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<void>((resolve) => child?.once('exit', () => resolve()));

    const started = join(workDir, 'started.log');
    await waitFor(() => {
      if (child?.exitCode !== null) throw new Error(`consumer process exited early: ${stderr}`);
      return readLines(join(workDir, 'hanging.log')).length === 2;
    }, 20_000);
    // The child has both jobs unacked and is stuck in its handlers: kill it without a chance to clean up.
    child.kill('SIGKILL');
    await exited;
    expect(child.signalCode).toBe('SIGKILL');

    const completed: { id: string; attempt: number; applied: boolean }[] = [];
    await queue.consume(queueName, async (job) => {
      const applied = applyEffectOnce(workDir, job.id, 'parent');
      completed.push({ id: job.id, attempt: job.attempt, applied });
    });
    await waitFor(() => completed.length === 2);

    expect(
      readLines(started)
        .map((l) => l.split(' ')[0])
        .sort(),
    ).toEqual(['crash-after-effect', 'crash-before-effect']);
    expect(completed.map((c) => c.id).sort()).toEqual(['crash-after-effect', 'crash-before-effect']);
    // Redelivery counts as a second delivery.
    expect(completed.every((c) => c.attempt === 2)).toBe(true);
    // The idempotent sink holds each effect exactly once: applied by the child before it died, or by the parent.
    expect(readLines(join(workDir, 'effects.log')).sort()).toEqual(['crash-after-effect child', 'crash-before-effect parent']);
    expect(completed.find((c) => c.id === 'crash-after-effect')?.applied).toBe(false);

    expect(await queue.deadLetters(queueName)).toEqual([]);
    await waitFor(async () => (await messageCount(`${prefix}.${queueName}`)) === 0);
  });
});
