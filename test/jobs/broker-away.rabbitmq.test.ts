/**
 * docs/contracts.md "Delivery guarantees": uploads while the broker is away. Before leases every such upload answered 502
 * and left a `failed` document that a re-upload called a duplicate. Now the document and its job (with the queue
 * message) commit together and the message leaves through the outbox: the upload is accepted, and once the broker
 * is back the sweeper sends it and the document completes. A TCP proxy in front of the machine's RabbitMQ stands
 * for the broker going away (the shared broker itself is never stopped).
 */
import { randomUUID } from 'node:crypto';

import { realServices } from '../support/databases';
import { HttpClient } from '../support/http';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { TcpProxy } from '../support/tcp-proxy';
import { registerUser } from '../support/users';

const describeReal = realServices ? describe : describe.skip;

async function upload(http: HttpClient, token: string, kbId: string, name: string, text: string) {
  const form = new FormData();
  form.append('file', new Blob([text], { type: 'text/plain' }), name);
  const res = await fetch(`${http.baseUrl}/api/knowledge/kb/${kbId}/documents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as { document: { id: string }; jobId: string } };
}

describeReal('uploads while the broker is away', () => {
  const proxy = new TcpProxy({ host: '127.0.0.1', port: 5672 });
  let platform: TestPlatform;

  beforeAll(async () => {
    await proxy.open();
    platform = await startTestPlatform({
      QUEUE: 'rabbitmq',
      RABBITMQ_URL: `amqp://guest:guest@127.0.0.1:${proxy.port}`,
      QUEUE_PREFIX: `broker-away-${randomUUID().slice(0, 8)}`,
      JOB_LEASE_SECONDS: '2',
    });
  });
  afterAll(async () => {
    await platform?.close();
    await proxy.shut();
  });

  it('accepts them, and processes each once the broker is back', async () => {
    const http = new HttpClient(platform.gatewayUrl);
    const owner = await registerUser(http, { label: 'broker-away' });
    const kb = await http.post('/api/knowledge/kb', { name: 'Manuals' }, { token: owner.accessToken });
    const kbId = kb.body.knowledgeBase.id as string;
    // The queue works: the consumers are subscribed before the broker goes.
    const before = await upload(http, owner.accessToken, kbId, 'before.txt', 'The compressor idles at 900 rpm. '.repeat(30));
    expect(before.status).toBe(201);

    await proxy.shut();
    const during = [];
    for (let i = 0; i < 3; i++) {
      during.push(
        await upload(http, owner.accessToken, kbId, `during-${i}.txt`, `Manual ${i}: the pump ${i} primes in ${i + 4} s. `.repeat(30)),
      );
    }
    expect(during.map((u) => u.status)).toEqual([201, 201, 201]);
    await new Promise((r) => setTimeout(r, 1_000));
    await proxy.open();

    const until = Date.now() + 90_000;
    for (;;) {
      const r = await http.get(`/api/knowledge/kb/${kbId}/documents?limit=100`, { token: owner.accessToken });
      const states = (r.body.documents as { processingStatus: string }[]).map((d) => d.processingStatus);
      if (states.length === 4 && states.every((s) => s === 'completed')) break;
      if (Date.now() > until) throw new Error(`documents not completed after the broker came back: ${JSON.stringify(states)}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    for (const u of during)
      expect((await http.get(`/api/jobs/${u.body.jobId}`, { token: owner.accessToken })).body.status).toBe('completed');
  }, 180_000);
});
