/**
 * docs/contracts.md "Delivery guarantees": the database goes away while accepted documents ingest. Before leases, the jobs
 * running then burned their attempts in the seconds of the outage and ended dead-lettered with their documents
 * stuck `processing`/`pending`. Now a run the database left is acknowledged and taken up again by the sweeper,
 * and a claim that cannot reach the database counts no attempt: once the database is back, every document
 * completes, each billed once, and no job stays open.
 *
 * The platform (`start`) runs on a scratch database of the real Postgres server (pgvector needed) reached through
 * a TCP proxy of this test; shutting the proxy is the database going away.
 */
import pg from 'pg';

import { createScratchDatabase, pgvectorOnServer, type ScratchDatabase } from '../support/databases';
import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { ADMIN_URL } from '../support/scratch-database';
import { TcpProxy } from '../support/tcp-proxy';
import { registerUser } from '../support/users';

const describeWithPgvector = pgvectorOnServer ? describe : describe.skip;
const DOCUMENTS = 12;

describeWithPgvector('ingestion while the database goes away', () => {
  let scratch: ScratchDatabase;
  let proxy: TcpProxy;
  let p: TestPlatform;

  beforeAll(async () => {
    const log = console.log.bind(console);
    // knex prints a stack for every failed connect: hundreds during the outage.
    jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
      if (typeof args[0] === 'string' && /^(Acquire connection error|Connection Error):/.test(args[0])) return;
      log(...args);
    });
    scratch = await createScratchDatabase('jobs_outage');
    const server = new URL(ADMIN_URL);
    proxy = new TcpProxy({ host: server.hostname, port: Number(server.port || 5432) });
    await proxy.open();
    p = await startTestPlatform(
      { DATABASE_URL: `postgres://postgres@127.0.0.1:${proxy.port}/${scratch.name}`, JOB_LEASE_SECONDS: '2' },
      { memoryDatabase: false },
    );
  }, BOOT_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
    await proxy?.shut();
    await scratch?.drop();
  });

  it('completes every accepted document once the database is back, each billed once', async () => {
    const owner = await registerUser(p.http, { label: 'jobs-outage' });
    const kb = await p.http.post('/api/knowledge/kb', { name: 'Manuals' }, { token: owner.accessToken });
    const kbId = kb.body.knowledgeBase.id as string;
    const accepted: string[] = [];
    for (let i = 0; i < DOCUMENTS; i++) {
      const form = new FormData();
      const text = Array.from({ length: 80 }, (_, k) => `Manual ${i}, step ${k}: turn valve ${k} to ${i + k} degrees.`).join('\n');
      form.append('file', new Blob([text], { type: 'text/plain' }), `manual-${i}.txt`);
      const res = await fetch(`${p.gatewayUrl}/api/knowledge/kb/${kbId}/documents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${owner.accessToken}` },
        body: form,
      });
      expect(res.status).toBe(201);
      accepted.push(((await res.json()) as { document: { id: string } }).document.id);
    }
    const db = new pg.Client({ connectionString: scratch.url });
    await db.connect();
    try {
      // The outage lands while some of them still wait or run (the test would prove nothing otherwise).
      const done = await db.query<{ n: number }>(
        "select count(*)::int as n from knowledge_documents where processing_status = 'completed'",
      );
      await proxy.shut();
      expect(done.rows[0]!.n).toBeLessThan(DOCUMENTS);
      await new Promise((r) => setTimeout(r, 8_000));
      await proxy.open();

      const until = Date.now() + 120_000;
      for (;;) {
        const { rows } = await db.query<{ processing_status: string; n: number }>(
          'select processing_status, count(*)::int as n from knowledge_documents group by 1',
        );
        const byStatus = Object.fromEntries(rows.map((r) => [r.processing_status, r.n]));
        if ((byStatus.completed ?? 0) + (byStatus.failed ?? 0) === DOCUMENTS) {
          expect(byStatus).toEqual({ completed: DOCUMENTS });
          break;
        }
        if (Date.now() > until) throw new Error(`documents not finished after the outage: ${JSON.stringify(byStatus)}`);
        await new Promise((r) => setTimeout(r, 500));
      }
      const open = await db.query("select id, status from jobs where status in ('queued', 'running')");
      expect(open.rows).toEqual([]);
      const billed = await db.query<{ document_id: string; n: number }>(
        "select reference->>'documentId' as document_id, count(*)::int as n from billing_events where kind = 'document_processing' group by 1",
      );
      expect(billed.rows.map((r) => r.document_id).sort()).toEqual([...accepted].sort());
      expect(billed.rows.every((r) => r.n === 1)).toBe(true);
    } finally {
      await db.end();
    }
  }, 240_000);
});
