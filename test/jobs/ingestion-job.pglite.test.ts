/**
 * Document ingestion reports through the job contract: the upload's jobId is a job from the start, and the
 * pipeline moves it through load, chunk, embed, store and summary to completed (or failed with a code).
 */
import type { Actor } from '../../core/identity/actor';
import { uploadDocument } from '../../core/knowledge/documents';
import { processIngestJob } from '../../core/knowledge/ingest-document';
import { stepStarts } from '../../core/knowledge/ingestion-progress';
import { defaultIngestionSteps } from '../../core/knowledge/ingestion-steps';
import { INGEST_QUEUE } from '../../core/knowledge/knowledge-deps';
import { createJobsHarness, type JobsHarness, waitFor } from './jobs-harness';

let h: JobsHarness;
let org: string;
let owner: Actor;
let kbId: string;
beforeAll(async () => {
  h = await createJobsHarness();
  ({ organizationId: org, owner } = await h.knowledge.newOrganization('ingest-jobs'));
  kbId = (await h.knowledge.newKnowledgeBase(org)).id;
});
afterAll(() => h?.close());

async function ingest(name: string, text: string) {
  const up = await uploadDocument(h.knowledge.deps, owner, kbId, { filename: name, bytes: Buffer.from(text) });
  const queued = await h.deps.store.repos.jobs.find(up.jobId);
  const watch = await h.watch(up.jobId);
  const outcome = await processIngestJob(h.knowledge.deps, {
    id: up.jobId,
    queue: INGEST_QUEUE,
    attempt: 1,
    payload: { organizationId: org, documentId: up.document.id },
  });
  await waitFor(() => watch.notices.some((n) => n.status === 'completed' || n.status === 'failed'), 'terminal event');
  await watch.close();
  return { up, queued, outcome, events: watch.notices.map((n) => n.event) };
}

describe('document ingestion as a job', () => {
  it('starts queued at upload, then reports every step with rising progress, then completed with the result', async () => {
    const { up, queued, outcome, events } = await ingest('guide.txt', 'The lighthouse keeper lights the lamp at dusk. '.repeat(40));
    expect(outcome).toBe('completed');
    expect(queued).toMatchObject({ kind: 'document_ingestion', status: 'queued', progress: 0, organizationId: org });
    expect(queued!.reference).toEqual({ documentId: up.document.id, knowledgeBaseId: kbId });
    expect(events.map((e) => e.step)).toEqual(['load', 'chunk', 'embed', 'store', 'summary', 'done']);
    expect(events.map((e) => e.status)).toEqual(['running', 'running', 'running', 'running', 'running', 'completed']);
    const progress = events.map((e) => e.progress as number);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(progress[0]).toBeGreaterThan(0);
    expect(progress.at(-1)).toBe(100);
    const doc = await h.deps.store.repos.documents.findById(org, up.document.id);
    expect(events.at(-1)).toMatchObject({
      jobId: up.jobId,
      result: { documentId: up.document.id, knowledgeBaseId: kbId, chunkCount: doc!.chunkCount },
      error: null,
    });
  });

  it('fails with a code and a reason when the file has no text (not retryable)', async () => {
    const { outcome, events } = await ingest('blank.txt', '   \n  ');
    expect(outcome).toBe('failed');
    expect(events.at(-1)).toMatchObject({
      status: 'failed',
      error: { code: 'validation', message: expect.stringMatching(/No extractable text/), retryable: false },
    });
  });

  it('cancels the job of a document deleted before it ran', async () => {
    const up = await uploadDocument(h.knowledge.deps, owner, kbId, { filename: 'gone.txt', bytes: Buffer.from('Soon deleted text.') });
    await h.deps.store.repos.documents.delete(org, up.document.id);
    await processIngestJob(h.knowledge.deps, {
      id: up.jobId,
      queue: INGEST_QUEUE,
      attempt: 1,
      payload: { organizationId: org, documentId: up.document.id },
    });
    expect(await h.deps.store.repos.jobs.find(up.jobId)).toMatchObject({ status: 'failed', error: { code: 'cancelled' } });
  });

  it('spreads steps over 5-95 by weight, embedding the longest', () => {
    const starts = stepStarts(defaultIngestionSteps);
    expect([...starts.keys()]).toEqual(['load', 'chunk', 'embed', 'store', 'summary']);
    expect(starts.get('load')).toBe(5);
    expect(starts.get('store')! - starts.get('embed')!).toBeGreaterThan(starts.get('embed')! - starts.get('chunk')!);
    expect(Math.max(...starts.values())).toBeLessThan(95);
  });
});
