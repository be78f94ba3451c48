/**
 * Ingestion under faults, and what must hold after it (docs/contracts.md "Delivery guarantees"), for the worker-killed
 * suite and the delivery-soak benchmark on the fault stack: organizations with a knowledge base each, uploads
 * through the gateway, a worker killed while it holds jobs, the wait for the drain, and the invariants checked
 * with SQL on the stack's database. No jest globals.
 */
import type pg from 'pg';

import { HttpClient } from './http';
import { registerUser } from './users';

export interface Tenant {
  token: string;
  organizationId: string;
  knowledgeBaseId: string;
}

/** `n` organizations registered through the gateway, each with one knowledge base. */
export async function createTenants(gatewayUrl: string, n: number, label = 'fault'): Promise<Tenant[]> {
  const http = new HttpClient(gatewayUrl);
  const tenants: Tenant[] = [];
  for (let i = 0; i < n; i++) {
    const owner = await registerUser(http, { label: `${label}-${i}` });
    const kb = await http.post('/api/knowledge/kb', { name: `Manuals ${i}` }, { token: owner.accessToken });
    if (kb.status !== 201) throw new Error(`knowledge base: ${kb.status} ${kb.text}`);
    tenants.push({ token: owner.accessToken, organizationId: owner.orgId, knowledgeBaseId: kb.body.knowledgeBase.id as string });
  }
  return tenants;
}

export interface Upload {
  tenant: Tenant;
  title: string;
  status: number;
  /** Set when accepted (201). */
  documentId?: string;
  jobId?: string;
  error?: string;
}

/** Uploads a text file through the gateway; a network error is an upload with status 0. */
export async function uploadText(gatewayUrl: string, tenant: Tenant, title: string, text: string): Promise<Upload> {
  const form = new FormData();
  form.append('file', new Blob([text], { type: 'text/plain' }), title);
  try {
    const res = await fetch(`${gatewayUrl}/api/knowledge/kb/${tenant.knowledgeBaseId}/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.token}` },
      body: form,
    });
    const body = (await res.json().catch(() => ({}))) as { document?: { id: string }; jobId?: string; code?: string };
    if (res.status !== 201) return { tenant, title, status: res.status, error: body.code ?? JSON.stringify(body).slice(0, 200) };
    return { tenant, title, status: 201, documentId: body.document?.id, jobId: body.jobId };
  } catch (error) {
    return { tenant, title, status: 0, error: error instanceof Error ? error.message : String(error) };
  }
}

/** A small manual, distinct per index (uploads of the same bytes would be called duplicates). */
export function manualText(i: number, paragraphs = 6): string {
  const lines = Array.from(
    { length: paragraphs },
    (_, p) =>
      `Manual ${i}, section ${p + 1}: the pump of unit ${i}-${p} primes in ${(i % 9) + p + 2} seconds, its filter is changed ` +
      `every ${(i * 7 + p) % 40} weeks, and the valve ${p} of line ${i} closes at ${100 + ((i * 13 + p) % 400)} kilopascal. ` +
      'Operators record each start, each stop and every alarm in the log book of the station before the shift ends.',
  );
  return lines.join('\n\n');
}

const ACTIVE_DOCUMENT = "processing_status in ('pending', 'processing')";
const ACTIVE_JOB = "status in ('queued', 'running')";

async function count(db: pg.Pool, sql: string, params: unknown[] = []): Promise<number> {
  return Number((await db.query(sql, params)).rows[0].n);
}

/** Documents and jobs not yet in a terminal state. */
export async function unfinished(db: pg.Pool): Promise<{ documents: number; jobs: number }> {
  return {
    documents: await count(db, `select count(*) as n from knowledge_documents where ${ACTIVE_DOCUMENT}`),
    jobs: await count(db, `select count(*) as n from jobs where ${ACTIVE_JOB}`),
  };
}

/** Waits until every document and job is terminal; false if `timeoutMs` passed first. */
export async function waitForDrain(db: pg.Pool, timeoutMs: number, pollMs = 250): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = await unfinished(db);
    if (left.documents === 0 && left.jobs === 0) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/** Jobs leased right now (a worker holds them), with their lease's end. */
async function liveLeases(db: pg.Pool): Promise<Map<string, number>> {
  const { rows } = await db.query(`select id, lease_until from jobs where ${ACTIVE_JOB} and lease_until > now()`);
  return new Map(rows.map((r: { id: string; lease_until: Date }) => [r.id, r.lease_until.getTime()]));
}

export interface Kill {
  worker: number;
  at: number;
  /** Jobs leased by some worker when the kill came. */
  leasedAtKill: number;
  /**
   * Jobs the killed worker held: leased at the kill, still open and not renewed half a lease later (a live worker
   * renews every third of a lease). On a loaded machine a live worker's late renewal can pass for one of these;
   * a job the dead worker really held ends with attempts >= 2.
   */
  orphaned: string[];
}

/**
 * Kills worker `i` once at least `minLeased` jobs are leased (up to `waitMs`), then finds the jobs it held: a
 * live worker renews its leases every third of JOB_LEASE_SECONDS, so a job still open whose lease is unchanged
 * half a lease after the kill (before it can run out) was the dead worker's. `afterKill` runs once it is dead (a
 * restart, say); the worker is not restarted here.
 */
export async function killWhileBusy(
  stack: { db: pg.Pool; leaseSeconds: number; killWorker(i: number): Promise<void> },
  i: number,
  { minLeased = 1, waitMs = 10_000, afterKill }: { minLeased?: number; waitMs?: number; afterKill?: () => void } = {},
): Promise<Kill> {
  const until = Date.now() + waitMs;
  let before = await liveLeases(stack.db);
  while (before.size < minLeased && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 50));
    before = await liveLeases(stack.db);
  }
  const at = Date.now();
  await stack.killWorker(i);
  afterKill?.();
  await new Promise((r) => setTimeout(r, (stack.leaseSeconds * 1000) / 2));
  const { rows } = await stack.db.query(`select id, lease_until from jobs where id = any($1) and ${ACTIVE_JOB}`, [[...before.keys()]]);
  const orphaned = rows
    .filter((r: { id: string; lease_until: Date | null }) => r.lease_until?.getTime() === before.get(r.id))
    .map((r: { id: string }) => r.id);
  return { worker: i, at, leasedAtKill: before.size, orphaned };
}

export interface InvariantReport {
  accepted: number;
  refused: Record<string, number>;
  /** Accepted uploads without a document row. */
  lost: number;
  /** Accepted uploads with more than one document row (their title is unique), and the rows beyond one. */
  duplicated: number;
  /** Documents pending/processing and jobs queued/running. */
  stuck: { documents: number; jobs: number };
  completed: number;
  failed: number;
  failedReasons: Record<string, number>;
  /** Completed documents with more than one `document_processing` event. */
  doubleBilled: number;
  /** Completed documents with none. */
  unbilled: number;
  /** Events for documents that are not completed. */
  billedNotCompleted: number;
  /** Documents whose chunk rows differ from their chunk_count (failed ones must have none). */
  chunkMismatch: number;
  chunkRows: number;
  /** Jobs claimed more than once (attempts > 1), and the most claims of one job. */
  reclaimedJobs: number;
  maxAttempts: number;
  /** Documents of no accepted upload (an upload answered otherwise that still stored one). */
  unacknowledgedDocuments: number;
}

/** Reads every invariant from the database; all of lost, duplicated, stuck, doubleBilled, ... must be 0. */
export async function checkInvariants(db: pg.Pool, uploads: Upload[]): Promise<InvariantReport> {
  const accepted = uploads.filter((u) => u.status === 201 && u.documentId);
  const refused: Record<string, number> = {};
  for (const u of uploads.filter((x) => x.status !== 201))
    refused[`${u.status} ${u.error ?? ''}`.trim()] = (refused[`${u.status} ${u.error ?? ''}`.trim()] ?? 0) + 1;
  const ids = accepted.map((u) => u.documentId!);
  const { rows: docs } = await db.query(
    `select id, title, knowledge_base_id, processing_status, chunk_count, error from knowledge_documents`,
  );
  const byId = new Map(docs.map((d: { id: string }) => [d.id, d]));
  const titles = new Map<string, number>();
  for (const d of docs as { title: string; knowledge_base_id: string }[])
    titles.set(`${d.knowledge_base_id}/${d.title}`, (titles.get(`${d.knowledge_base_id}/${d.title}`) ?? 0) + 1);
  const lost = ids.filter((id) => !byId.has(id)).length;
  const duplicated = accepted.filter((u) => (titles.get(`${u.tenant.knowledgeBaseId}/${u.title}`) ?? 0) > 1).length;
  const acceptedIds = new Set(ids);
  const failedReasons: Record<string, number> = {};
  for (const d of docs as { processing_status: string; error: string | null }[])
    if (d.processing_status === 'failed') failedReasons[d.error ?? '(no reason)'] = (failedReasons[d.error ?? '(no reason)'] ?? 0) + 1;

  // Billing: one document_processing event per completed document, none for the others.
  const { rows: billing } = await db.query(
    `select d.id, d.processing_status, count(b.id)::int as events
       from knowledge_documents d
       left join billing_events b on b.kind = 'document_processing' and b.reference->>'documentId' = d.id::text
      group by d.id, d.processing_status`,
  );
  const orphanEvents = await count(
    db,
    `select count(*) as n from billing_events b where b.kind = 'document_processing'
       and not exists (select 1 from knowledge_documents d where d.id::text = b.reference->>'documentId')`,
  );

  // Chunks live in one table per embedding size, and its staging twin (adapters/pgvector).
  const { rows: spaces } = await db.query('select dimensions from vector_spaces');
  const tables = spaces.flatMap((s: { dimensions: number }) => [`kv_chunks_${s.dimensions}`, `kv_chunks_${s.dimensions}_staged`]);
  const chunks = new Map<string, number>();
  if (tables.length) {
    const union = tables.map((t: string) => `select document_id from ${t}`).join(' union all ');
    const { rows } = await db.query(`select document_id, count(*)::int as n from (${union}) c group by document_id`);
    for (const r of rows as { document_id: string; n: number }[]) chunks.set(String(r.document_id), r.n);
  }
  const chunkMismatch = (docs as { id: string; processing_status: string; chunk_count: number }[]).filter((d) => {
    const rows = chunks.get(d.id) ?? 0;
    return d.processing_status === 'completed' ? rows !== d.chunk_count : rows !== 0 && d.processing_status === 'failed';
  }).length;
  const { rows: attempts } = await db.query(
    `select count(*) filter (where attempts > 1)::int as reclaimed, coalesce(max(attempts), 0)::int as max from jobs`,
  );
  const billed = billing as { processing_status: string; events: number }[];
  return {
    accepted: accepted.length,
    refused,
    lost,
    duplicated,
    stuck: await unfinished(db),
    completed: docs.filter((d: { processing_status: string }) => d.processing_status === 'completed').length,
    failed: docs.filter((d: { processing_status: string }) => d.processing_status === 'failed').length,
    failedReasons,
    doubleBilled: billed.filter((b) => b.processing_status === 'completed' && b.events > 1).length,
    unbilled: billed.filter((b) => b.processing_status === 'completed' && b.events === 0).length,
    billedNotCompleted: billed.filter((b) => b.processing_status !== 'completed' && b.events > 0).length + orphanEvents,
    chunkMismatch,
    chunkRows: [...chunks.values()].reduce((a, b) => a + b, 0),
    reclaimedJobs: attempts[0].reclaimed,
    maxAttempts: attempts[0].max,
    unacknowledgedDocuments: docs.filter((d: { id: string }) => !acceptedIds.has(d.id)).length,
  };
}

/** The counts that must be 0 after a drain, by name. */
export function mustBeZero(report: InvariantReport): Record<string, number> {
  return {
    lost: report.lost,
    stuck: report.stuck.documents + report.stuck.jobs,
    duplicated: report.duplicated,
    doubleBilled: report.doubleBilled,
    unbilled: report.unbilled,
    billedNotCompleted: report.billedNotCompleted,
    chunkMismatch: report.chunkMismatch,
  };
}

/** Those of them that are not 0. */
export function violations(report: InvariantReport): Record<string, number> {
  return Object.fromEntries(Object.entries(mustBeZero(report)).filter(([, n]) => n !== 0));
}
