import { randomUUID } from 'node:crypto';

import type { Database } from '../../adapters/postgres/database';
import { KnexStore } from '../../adapters/postgres/knex-store';
import { relationalMigrations } from '../../adapters/postgres/migrations';
import { migrate } from '../../adapters/postgres/migrator';
import type { JobRecord } from '../../core/jobs/job';
import type { Repositories } from '../../core/ports/repositories';
import type { WebhookDelivery } from '../../core/webhooks/webhook-delivery';

export interface StoreFixture {
  /** An empty database: the suite runs the migrations itself. */
  db: Database;
  teardown(): Promise<void>;
}

const SETUP_TIMEOUT_MS = 180_000;
const at = (ms: number) => new Date(Date.UTC(2025, 0, 1) + ms).toISOString();

/**
 * The repositories of the job contract (jobs, webhook deliveries) and of user groups, against one store
 * (PGlite or a Postgres server): the compare-and-set and monotonic rules live in SQL, so both must agree.
 */
export function jobsStoreConformance(name: string, makeFixture: () => Promise<StoreFixture>): void {
  describe(`jobs and groups store conformance: ${name}`, () => {
    let fx: StoreFixture;
    let repos: Repositories;
    let orgId: string;
    let otherOrgId: string;
    const users: string[] = [];

    beforeAll(async () => {
      fx = await makeFixture();
      await migrate(fx.db.knex, [relationalMigrations]);
      repos = new KnexStore(fx.db.knex).repos;
      const org = async () => {
        const id = randomUUID();
        await repos.organizations.create({
          id,
          name: 'Org',
          slug: `org-${id.slice(0, 8)}`,
          plan: { seats: 5, agents: 5, knowledgeBases: 5 },
          createdAt: at(0),
        });
        return id;
      };
      orgId = await org();
      otherOrgId = await org();
      for (let i = 0; i < 3; i++) {
        const id = randomUUID();
        await repos.users.create({
          id,
          email: `u-${id}@example.com`,
          displayName: `User ${i}`,
          passwordHash: 'x',
          emailVerified: false,
          accountType: 'password',
          platformRole: 'user',
          status: 'active',
          googleSubject: null,
          createdAt: at(0),
          updatedAt: at(0),
        });
        await repos.memberships.add({ organizationId: orgId, userId: id, role: 'member', createdAt: at(0) });
        users.push(id);
      }
    }, SETUP_TIMEOUT_MS);
    afterAll(() => fx?.teardown(), SETUP_TIMEOUT_MS);

    const job = (over: Partial<JobRecord> = {}): JobRecord => ({
      id: randomUUID(),
      organizationId: orgId,
      kind: 'document_ingestion',
      status: 'queued',
      progress: 0,
      step: null,
      stepLabel: 'Waiting',
      detail: null,
      error: null,
      result: null,
      body: { a: 1 },
      reference: { documentId: 'd' },
      webhookUrl: 'https://hooks.example/x',
      createdBy: null,
      createdAt: at(0),
      updatedAt: at(0),
      startedAt: null,
      finishedAt: null,
      emittedAt: at(0),
      ...over,
    });

    describe('jobs', () => {
      it('creates once: the same id again returns the stored job unchanged', async () => {
        const first = job();
        const created = await repos.jobs.create(first);
        expect(created).toEqual({ job: first, created: true });
        const again = await repos.jobs.create({ ...first, kind: 'other', stepLabel: 'changed' });
        expect(again).toEqual({ job: first, created: false });
        expect(await repos.jobs.find(first.id)).toEqual(first);
        expect(await repos.jobs.find('missing')).toBeNull();
      });

      it('advances: running, progress never backwards, body merged, emittedAt strictly increasing', async () => {
        const j = job();
        await repos.jobs.create(j);
        const a = await repos.jobs.advance(j.id, { progress: 40, step: 'embed', stepLabel: 'Embedding', body: { b: 2 } }, at(1000));
        expect(a).toMatchObject({ status: 'running', progress: 40, step: 'embed', stepLabel: 'Embedding', startedAt: at(1000) });
        expect(a!.body).toEqual({ a: 1, b: 2 });
        expect(a!.emittedAt).toBe(at(1000));
        // An older clock reading, a lower progress: progress stays, emittedAt still moves forward by 1 ms.
        const b = await repos.jobs.advance(j.id, { progress: 10, detail: 'tick' }, at(500));
        expect(b).toMatchObject({ progress: 40, step: 'embed', detail: 'tick', startedAt: at(1000) });
        expect(b!.emittedAt).toBe(at(1001));
        const c = await repos.jobs.advance(j.id, { progress: 60 }, at(1001));
        expect(c!.emittedAt).toBe(at(1002));
        expect(c!.progress).toBe(60);
      });

      it('finishes once: completed sets 100 and the result; later changes are refused', async () => {
        const j = job();
        await repos.jobs.create(j);
        await repos.jobs.advance(j.id, { progress: 30 }, at(10));
        const done = await repos.jobs.finish(j.id, { status: 'completed', result: { chunkCount: 3 }, step: 'done' }, at(20));
        expect(done).toMatchObject({ status: 'completed', progress: 100, result: { chunkCount: 3 }, error: null, finishedAt: at(20) });
        expect(await repos.jobs.advance(j.id, { progress: 50 }, at(30))).toBeNull();
        expect(
          await repos.jobs.finish(j.id, { status: 'failed', error: { code: 'x', message: 'y', retryable: false } }, at(40)),
        ).toBeNull();
        expect((await repos.jobs.find(j.id))!.status).toBe('completed');
      });

      it('fails a queued job with its error and keeps its progress', async () => {
        const j = job({ progress: 0 });
        await repos.jobs.create(j);
        const failed = await repos.jobs.finish(
          j.id,
          { status: 'failed', error: { code: 'validation', message: 'empty', retryable: false } },
          at(5),
        );
        expect(failed).toMatchObject({
          status: 'failed',
          progress: 0,
          error: { code: 'validation', message: 'empty', retryable: false },
          startedAt: at(5),
        });
      });
    });

    describe('webhook deliveries', () => {
      const delivery = (jobId: string, over: Partial<WebhookDelivery> = {}): WebhookDelivery => ({
        id: randomUUID(),
        organizationId: orgId,
        jobId,
        url: 'https://hooks.example/x',
        event: 'completed',
        body: '{"jobId":"x"}',
        status: 'pending',
        attempts: 0,
        lastStatusCode: null,
        lastError: null,
        createdAt: at(0),
        updatedAt: at(0),
        deliveredAt: null,
        ...over,
      });

      it('records attempts with compare-and-set, lists per job, scoped to the organization', async () => {
        const j = job();
        await repos.jobs.create(j);
        const d = delivery(j.id);
        await repos.webhookDeliveries.create(d);
        expect(await repos.webhookDeliveries.find(otherOrgId, d.id)).toBeNull();
        const attempt = {
          attempts: 1,
          status: 'pending' as const,
          lastStatusCode: 503,
          lastError: 'busy',
          updatedAt: at(1),
          deliveredAt: null,
        };
        expect(await repos.webhookDeliveries.recordAttempt(orgId, d.id, 0, attempt)).toBe(true);
        expect(await repos.webhookDeliveries.recordAttempt(orgId, d.id, 0, attempt)).toBe(false); // counted once
        const ok = {
          attempts: 2,
          status: 'delivered' as const,
          lastStatusCode: 200,
          lastError: null,
          updatedAt: at(2),
          deliveredAt: at(2),
        };
        expect(await repos.webhookDeliveries.recordAttempt(orgId, d.id, 1, ok)).toBe(true);
        expect(await repos.webhookDeliveries.recordAttempt(orgId, d.id, 2, { ...ok, attempts: 3 })).toBe(false); // settled
        expect(await repos.webhookDeliveries.find(orgId, d.id)).toEqual({ ...d, ...ok });
        const second = delivery(j.id, { createdAt: at(5), event: 'failed' });
        await repos.webhookDeliveries.create(second);
        expect((await repos.webhookDeliveries.listForJob(orgId, j.id)).map((x) => x.id)).toEqual([d.id, second.id]);
        expect(await repos.webhookDeliveries.listForJob(otherOrgId, j.id)).toEqual([]);
      });

      it('claims an attempt once, finds the first pending delivery of a job, lists stalled ones first in line', async () => {
        const j = job();
        await repos.jobs.create(j);
        const first = delivery(j.id, { createdAt: at(10), updatedAt: at(10) });
        const second = delivery(j.id, { createdAt: at(11), updatedAt: at(11), event: 'later' });
        for (const d of [second, first]) await repos.webhookDeliveries.create(d);
        expect(await repos.webhookDeliveries.claimAttempt(otherOrgId, first.id, 0, at(12))).toBe(false);
        const claims = await Promise.all([0, 1].map(() => repos.webhookDeliveries.claimAttempt(orgId, first.id, 0, at(12))));
        expect(claims.sort()).toEqual([false, true]);
        expect(await repos.webhookDeliveries.find(orgId, first.id)).toMatchObject({ attempts: 1, status: 'pending', updatedAt: at(12) });
        expect((await repos.webhookDeliveries.firstPendingOfJob(orgId, j.id))!.id).toBe(first.id);
        expect(await repos.webhookDeliveries.firstPendingOfJob(otherOrgId, j.id)).toBeNull();
        // Untouched since before at(20) and first in line: only `first` (the later one waits behind it).
        const stalledIds = async () =>
          (await repos.webhookDeliveries.listStalled(at(20), 100)).filter((d) => d.jobId === j.id).map((d) => d.id);
        expect(await stalledIds()).toEqual([first.id]);
        expect((await repos.webhookDeliveries.listStalled(at(12), 100)).some((d) => d.jobId === j.id)).toBe(false);
        const done = {
          attempts: 1,
          status: 'delivered' as const,
          lastStatusCode: 200,
          lastError: null,
          updatedAt: at(13),
          deliveredAt: at(13),
        };
        expect(await repos.webhookDeliveries.recordAttempt(orgId, first.id, 1, done)).toBe(true);
        expect(await repos.webhookDeliveries.claimAttempt(orgId, first.id, 1, at(14))).toBe(false); // settled
        expect((await repos.webhookDeliveries.firstPendingOfJob(orgId, j.id))!.id).toBe(second.id);
        expect(await stalledIds()).toEqual([second.id]);
      });
    });

    describe('user groups', () => {
      it('creates with unique names per organization, counts and lists members, checks membership', async () => {
        const g = { id: randomUUID(), organizationId: orgId, name: 'Support', createdBy: users[0], createdAt: at(1) };
        await repos.groups.create(g);
        await expect(repos.groups.create({ ...g, id: randomUUID(), name: 'SUPPORT' })).rejects.toMatchObject({ code: 'CONFLICT' });
        await repos.groups.create({ ...g, id: randomUUID(), organizationId: otherOrgId });
        await repos.groups.addMember(orgId, g.id, users[0], at(2));
        await repos.groups.addMember(orgId, g.id, users[0], at(3)); // idempotent
        await repos.groups.addMember(orgId, g.id, users[1], at(4));
        expect(await repos.groups.find(orgId, g.id)).toEqual({ id: g.id, name: 'Support', memberCount: 2, createdAt: at(1) });
        expect(await repos.groups.find(otherOrgId, g.id)).toBeNull();
        expect((await repos.groups.listMembers(orgId, g.id)).map((m) => m.userId)).toEqual([users[0], users[1]]);
        expect(await repos.groups.isMemberOfAny(orgId, [randomUUID(), g.id], users[1])).toBe(true);
        expect(await repos.groups.isMemberOfAny(orgId, [g.id], users[2])).toBe(false);
        expect(await repos.groups.isMemberOfAny(otherOrgId, [g.id], users[1])).toBe(false);
        expect(await repos.groups.isMemberOfAny(orgId, ['not-a-uuid'], users[1])).toBe(false);
        expect(await repos.groups.removeMember(orgId, g.id, users[1])).toBe(true);
        expect(await repos.groups.removeMember(orgId, g.id, users[1])).toBe(false);
        expect(await repos.groups.removeUser(orgId, users[0])).toBe(1);
        expect((await repos.groups.list(orgId)).find((x) => x.id === g.id)!.memberCount).toBe(0);
        expect(await repos.groups.delete(orgId, g.id)).toBe(true);
        expect(await repos.groups.delete(orgId, g.id)).toBe(false);
      });
    });
  });
}
