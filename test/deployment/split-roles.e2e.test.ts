/**
 * The production shape end to end (TEST_REAL_SERVICES=1, with pgvector on the Postgres server): `migrate`, then
 * `api`, `worker` and `gateway` as separate processes of bin/platform.ts on a scratch database of the local
 * Postgres server, RabbitMQ and Redis (test/support/split-stack.ts). A document uploaded through the gateway is
 * indexed by the worker process (the job travels over RabbitMQ), its chunks land in pgvector on the server, and a
 * chat through the gateway answers from it. Every other suite runs the `start` shape on PGlite.
 */
import { randomUUID } from 'node:crypto';

import { messageCount } from '../../adapters/rabbitmq/test-fixtures/broker';
import { consumers } from '../../app/workers';
import { pgvectorOnServer } from '../support/databases';
import { HttpClient } from '../support/http';
import { type SplitStack, startSplitStack } from '../support/split-stack';
import { registerUser, type TestUser } from '../support/users';

const STACK_TIMEOUT_MS = 240_000;
const REFUNDS = 'Refunds are paid within fourteen days of the return reaching our warehouse. Exchanges are free within thirty days.';

const maybe = pgvectorOnServer ? describe : describe.skip;

maybe('split roles on Postgres, RabbitMQ and Redis', () => {
  let stack: SplitStack;
  let http: HttpClient;
  let owner: TestUser;

  beforeAll(async () => {
    stack = await startSplitStack();
    http = new HttpClient(stack.gatewayUrl);
    owner = await registerUser(http, { label: 'split-owner' });
  }, STACK_TIMEOUT_MS);
  let closed = false;
  afterAll(() => (closed ? undefined : stack?.close()), STACK_TIMEOUT_MS);

  it(
    'indexes a document in the worker process and answers from it through the gateway',
    async () => {
      const token = owner.accessToken;
      const kb = await http.post('/api/knowledge/kb', { name: `Policies ${randomUUID().slice(0, 6)}` }, { token });
      expect(kb.status).toBe(201);
      const kbId = kb.body.knowledgeBase.id as string;
      const form = new FormData();
      form.append('file', new Blob([REFUNDS], { type: 'text/plain' }), 'refund-policy.txt');
      const up = await fetch(`${stack.gatewayUrl}/api/knowledge/kb/${kbId}/documents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: form,
      });
      expect(up.status).toBe(201);
      const documentId = ((await up.json()) as { document: { id: string } }).document.id;
      let status = 'pending';
      for (let i = 0; i < 600 && !['completed', 'failed'].includes(status); i++) {
        await new Promise((r) => setTimeout(r, 100));
        status = (await http.get(`/api/knowledge/kb/${kbId}/documents/${documentId}`, { token })).body.document.processingStatus;
      }
      expect(status).toBe('completed');

      const agent = await http.post('/api/bots', { name: 'Split agent', knowledgeBaseIds: [kbId] }, { token });
      expect(agent.status).toBe(201);
      const chat = await http.post(`/api/bots/${agent.body.bot.id}/chat`, { message: 'When are refunds paid?' }, { token });
      expect(chat.status).toBe(200);
      expect(chat.body.response).toMatch(/fourteen days/);
      expect(chat.body.sources[0]).toMatchObject({ documentTitle: 'refund-policy.txt', knowledgeBaseId: kbId });
    },
    STACK_TIMEOUT_MS,
  );

  it('answers through the gateway and refuses the same request sent to the api directly, forged identity or not', async () => {
    const me = await http.get('/api/auth/me', { token: owner.accessToken });
    expect(me.status).toBe(200);
    expect(me.text).toContain(owner.email);
    const direct = new HttpClient(stack.apiUrl);
    expect((await direct.get('/api/auth/me', { token: owner.accessToken })).status).toBe(401);
    const forged = { 'user-id': owner.id, 'organization-id': owner.orgId, 'x-org-role': 'owner', 'x-platform-role': 'superadmin' };
    expect((await direct.get('/api/auth/me', { headers: forged })).status).toBe(401);
  });

  // last: it closes the stack
  it(
    'leaves no durable queue or exchange of its own on the shared broker when it closes',
    async () => {
      const ingest = `${stack.queuePrefix}.knowledge.ingest`;
      expect(await messageCount(ingest)).toBe(0); // declared by the worker, and drained
      closed = true;
      await stack.close();
      expect(await messageCount(ingest)).toBeUndefined();
      expect(await messageCount(`${ingest}.dead`)).toBeUndefined();
      for (const { queue } of consumers) expect(await messageCount(`${stack.queuePrefix}.${queue}`)).toBeUndefined();
    },
    STACK_TIMEOUT_MS,
  );
});
