/**
 * The request id reaches the ingestion job's log lines over RabbitMQ too (the x-request-id AMQP header), on a
 * platform configured with QUEUE=rabbitmq against the local broker (TEST_REAL_SERVICES=1).
 */
import { randomUUID } from 'node:crypto';

import type { RabbitMqJobQueue } from '../../adapters/rabbitmq/rabbitmq.job-queue';
import { AMQP_URL, deleteTopology, describeReal, uniquePrefix } from '../../adapters/rabbitmq/test-fixtures/broker';
import { JOB_QUEUE } from '../../core/ports/job-queue';
import { waitFor } from '../conformance/job-queue.conformance';
import { createKb, waitForDocument } from '../knowledge/knowledge-support';
import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { registerUser } from '../support/users';

describeReal('request ids into jobs over RabbitMQ', () => {
  const prefix = uniquePrefix('obs');
  const lines: Record<string, unknown>[] = [];
  let p: TestPlatform;

  beforeAll(async () => {
    p = await startTestPlatform(
      { LOG_LEVEL: 'info', TRUST_PROXY: 'true', QUEUE: 'rabbitmq', RABBITMQ_URL: AMQP_URL, QUEUE_PREFIX: prefix },
      { logDestination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) } },
    );
  }, BOOT_TIMEOUT_MS);

  afterAll(async () => {
    const declared = p ? [...(await p.infra.adapters.getAsync<RabbitMqJobQueue>(JOB_QUEUE)).declaredQueues] : [];
    expect(declared).toContain(`${prefix}.knowledge.ingest`);
    await p?.close();
    await deleteTopology(declared, [`${prefix}.events`]);
  }, BOOT_TIMEOUT_MS);

  it('carries an upload’s X-Request-Id into every log line of its ingestion job', async () => {
    expect(p.infra.queue.id).toBe('rabbitmq');
    const owner = await registerUser(p.http, { label: 'obs-amqp' });
    const kb = await createKb(p, owner.accessToken);
    const requestId = `amqp-upload-${randomUUID()}`;
    const form = new FormData();
    form.append('file', new Blob(['Parcels ship within two working days.'], { type: 'text/plain' }), 'shipping.txt');
    const res = await fetch(`${p.gatewayUrl}/api/knowledge/kb/${kb.id}/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.accessToken}`, 'x-request-id': requestId },
      body: form,
    });
    expect(res.status).toBe(201);
    const documentId = ((await res.json()) as { document: { id: string } }).document.id;
    expect((await waitForDocument(p, owner.accessToken, kb.id, documentId)).processingStatus).toBe('completed');
    await waitFor(() => lines.some((l) => l.queue === 'knowledge.ingest' && l.message === 'job'));
    const jobLines = lines.filter((l) => l.queue === 'knowledge.ingest');
    for (const line of jobLines) expect(line.requestId).toBe(requestId);
    expect(jobLines).toContainEqual(expect.objectContaining({ message: 'job', outcome: 'completed' }));
  });
});
