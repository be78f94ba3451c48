/**
 * `start` on a Postgres server with HTTP_PROCESSES=2: this process and one forked replica serve the public
 * port, connections handed out in turn. What a user relies on, whichever process answers a request: a
 * revoked API key is refused at once, a document uploaded to either is processed (the workers run in the
 * primary), a job's progress streams to a client of either, a caller's rate limit counts the requests to both
 * processes, and a replica that dies is replaced.
 *
 * Each request here opens its own connection: consecutive ones go to different processes.
 */
import http from 'node:http';

import { REPORT_EVERY_MS } from '../../adapters/ipc/synced.rate-limit-store';
import { sseFrames } from '../jobs/job-clients';
import { createKb } from '../knowledge/knowledge-support';
import { waitFor } from '../public-chat/public-support';
import { createScratchDatabase, describeWithRealServices, pgvectorOnServer, type ScratchDatabase } from '../support/databases';
import { rawRequest } from '../support/http';
import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { registerUser, type TestUser } from '../support/users';

const PER_PRINCIPAL = 30;

/** One request on a connection of its own (no keep-alive), so the front hands it to the next process. */
const fresh = (p: TestPlatform, method: string, path: string, headers: Record<string, string> = {}, body?: Buffer) =>
  rawRequest(p.gatewayUrl, method, path, headers, body);

/** A markdown document uploaded on a connection of its own. */
async function uploadOnFreshConnection(p: TestPlatform, token: string, kbId: string, name: string, text: string) {
  const form = new FormData();
  form.append('file', new Blob([text], { type: 'text/markdown' }), name);
  const encoded = new Response(form);
  const headers = { authorization: `Bearer ${token}`, 'content-type': encoded.headers.get('content-type')! };
  return fresh(p, 'POST', `/api/knowledge/kb/${kbId}/documents`, headers, Buffer.from(await encoded.arrayBuffer()));
}

/** A job's event stream on a connection of its own, read until the server closes it after the terminal event. */
function streamOnFreshConnection(p: TestPlatform, token: string, jobId: string) {
  const { hostname, port } = new URL(p.gatewayUrl);
  return new Promise<{ status: number; frames: ReturnType<typeof sseFrames> }>((resolve, reject) => {
    const headers = { authorization: `Bearer ${token}`, accept: 'text/event-stream' };
    const req = http.request({ host: hostname, port: Number(port), path: `/api/jobs/${jobId}/events`, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, frames: sseFrames(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const describeIfPgvector = pgvectorOnServer ? describeWithRealServices : describe.skip;

describeIfPgvector('start with an HTTP replica on a Postgres server', () => {
  let scratch: ScratchDatabase;
  let p: TestPlatform;
  let owner: TestUser;

  beforeAll(async () => {
    scratch = await createScratchDatabase('http_replicas');
    p = await startTestPlatform(
      {
        DATABASE_URL: scratch.url,
        HTTP_PROCESSES: '2',
        RATE_LIMIT_PER_IP: '1000000',
        RATE_LIMIT_PER_PRINCIPAL: String(PER_PRINCIPAL),
        RATE_LIMIT_WINDOW_SECONDS: '600',
      },
      { memoryDatabase: false },
    );
    owner = await registerUser(p.http, { label: 'replicas' });
  }, BOOT_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
    await scratch?.drop();
  }, BOOT_TIMEOUT_MS);

  it('runs one replica beside this process', () => {
    expect(p.replicaPids()).toHaveLength(1);
    expect(p.replicaPids()[0]).not.toBe(process.pid);
  });

  it('refuses a revoked API key on the next request in both processes', async () => {
    const created = await p.http.post('/api/api-keys', { name: 'both', scopes: ['contacts:read'] }, { token: owner.accessToken });
    expect(created.status).toBe(201);
    const key = { authorization: `Bearer ${created.body.key}` };
    // Two consecutive connections: each process verifies (and caches) the key once.
    expect([(await fresh(p, 'GET', '/v1/me', key)).status, (await fresh(p, 'GET', '/v1/me', key)).status]).toEqual([200, 200]);
    const revoked = await fresh(p, 'DELETE', `/api/api-keys/${created.body.apiKey.id}`, { authorization: `Bearer ${owner.accessToken}` });
    expect(revoked.status).toBeLessThan(300);
    const after = [(await fresh(p, 'GET', '/v1/me', key)).status, (await fresh(p, 'GET', '/v1/me', key)).status];
    expect(after).toEqual([401, 401]);
  });

  it('processes documents uploaded to either process (the primary runs the jobs)', async () => {
    const kb = await createKb(p, owner.accessToken, { name: 'Replicated' });
    const ids: string[] = [];
    for (const name of ['one.md', 'two.md']) {
      const r = await uploadOnFreshConnection(
        p,
        owner.accessToken,
        kb.id,
        name,
        `# ${name}\n\nThe replica handed this document to the primary's queue.`,
      );
      expect(r.status).toBe(201);
      ids.push(r.body.document.id);
    }
    // Read from the store: polling through the gateway would spend the owner's per-principal allowance.
    for (const id of ids) {
      const done = await waitFor(
        async () => {
          const doc = await p.store.repos.documents.findById(owner.orgId, id);
          return doc && ['completed', 'failed'].includes(doc.processingStatus) ? doc : null;
        },
        `document ${id}`,
        60_000,
      );
      expect(done.processingStatus).toBe('completed');
    }
  });

  it("streams a job's progress, made in the primary's workers, to clients of both processes", async () => {
    const kb = await createKb(p, owner.accessToken, { name: 'Streamed' });
    const paragraphs = Array.from({ length: 1500 }, (_, i) => `Paragraph ${i} of the streamed guide: the keeper lights lamp ${i}.`);
    const uploaded = await uploadOnFreshConnection(p, owner.accessToken, kb.id, 'streamed.md', paragraphs.join('\n\n'));
    expect(uploaded.status).toBe(201);
    // Two connections opened one after the other: the front hands one to each process. The document is large
    // enough that both are open long before its last steps.
    const streams = await Promise.all([
      streamOnFreshConnection(p, owner.accessToken, uploaded.body.jobId),
      streamOnFreshConnection(p, owner.accessToken, uploaded.body.jobId),
    ]);
    for (const { status, frames } of streams) {
      expect(status).toBe(200);
      // The state replayed on connect, then each step as the job ran (relayed to the replica as it happened:
      // without the relay its stream only has the replay and, at the next heartbeat's re-read, the end).
      expect(frames.slice(0, -1).every((f) => f.event === 'progress')).toBe(true);
      expect(frames.map((f) => f.data.step)).toEqual(expect.arrayContaining(['store', 'summary']));
      expect(frames.at(-1)).toMatchObject({ event: 'done', data: { status: 'completed', progress: 100 } });
    }
    expect(streams[0]!.frames.at(-1)!.id).toBe(streams[1]!.frames.at(-1)!.id);
  });

  it('starts another replica when one dies', async () => {
    const [dead] = p.replicaPids();
    process.kill(dead!, 'SIGKILL');
    // Listed once it serves: the connections from here on alternate again.
    await waitFor(async () => p.replicaPids().length === 1 && p.replicaPids()[0] !== dead, 'a new replica', 60_000);
    const health = [];
    for (let i = 0; i < 4; i++) health.push((await fresh(p, 'GET', '/health')).status);
    expect(health).toEqual([200, 200, 200, 200]);
  });

  it("counts a caller's requests to both processes against one limit", async () => {
    const caller = await registerUser(p.http, { label: 'counted' }); // registering is not a request of this principal
    const statuses: number[] = [];
    // Spaced by more than the replica's report interval, so every hit is known platform-wide before the next.
    for (let i = 0; i < PER_PRINCIPAL + 10; i++) {
      statuses.push((await fresh(p, 'GET', '/api/auth/me', { authorization: `Bearer ${caller.accessToken}` })).status);
      await new Promise((r) => setTimeout(r, REPORT_EVERY_MS * 4));
    }
    // Counted per process, all 40 would be allowed (20 each). The replica learns of the primary's hits at its
    // next report, so it may allow one more than the limit (synced.rate-limit-store.ts), never two.
    expect(statuses.slice(0, PER_PRINCIPAL)).toEqual(Array(PER_PRINCIPAL).fill(200));
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(PER_PRINCIPAL + 1);
    expect(statuses.slice(PER_PRINCIPAL + 2)).toEqual(Array(8).fill(429));
  });
});
