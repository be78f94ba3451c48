import type { Knex } from 'knex';

import type { Migration } from '../migrator';

/**
 * Jobs carry what is needed to run them again (their queue and payload: the row is the outbox of its queue
 * message), how often a worker claimed them, and a lease a running worker renews. The sweeper re-dispatches a
 * non-terminal job whose lease ran out or whose message was never sent or was lost (docs/contracts.md "Delivery
 * guarantees"). Ingestion jobs from before this migration get their dispatch back from their reference, so
 * documents stranded by an earlier crash are taken up too.
 */
export const jobLeasesMigration: Migration = {
  name: '0074_job_leases',
  async up(db: Knex) {
    await db.raw(`
      alter table jobs
        add column queue text,
        add column payload jsonb,
        add column attempts integer not null default 0,
        add column lease_until timestamptz,
        add column dispatched_at timestamptz`);
    await db.raw(`
      update jobs set queue = 'knowledge.ingest',
        payload = jsonb_build_object('organizationId', organization_id, 'documentId', reference->>'documentId'),
        dispatched_at = updated_at
      where kind = 'document_ingestion' and status in ('queued', 'running') and reference->>'documentId' is not null`);
    await db.raw(`create index jobs_active_dispatch_idx on jobs (coalesce(lease_until, dispatched_at, created_at))
      where status in ('queued', 'running') and queue is not null`);
  },
};
