import { makeWav } from '../../adapters/documents/fixtures/builders';
import type { PgvectorVectorIndex } from '../../adapters/pgvector/pgvector.vector-index';
import type { Actor } from '../../core/identity/actor';
import { type IngestJobPayload, retryDocument, uploadDocument } from '../../core/knowledge/documents';
import { processIngestJob } from '../../core/knowledge/ingest-document';
import { ingestText, removeDocument } from '../../core/knowledge/ingest-text';
import { defaultIngestionSteps, type IngestionStep, storeStep } from '../../core/knowledge/ingestion-steps';
import type { KnowledgeBase } from '../../core/knowledge/knowledge-base';
import { INGEST_QUEUE } from '../../core/knowledge/knowledge-deps';
import type { Job } from '../../core/ports/job-queue';
import { DomainError } from '../../core/shared/errors';
import { createKnowledgeHarness, type KnowledgeHarness } from './knowledge-harness';

let h: KnowledgeHarness;
let org: string;
let owner: Actor;
let kb: KnowledgeBase;

beforeAll(async () => {
  h = await createKnowledgeHarness({
    transcriber: {
      model: 'fake/whisper',
      transcribe: async () => ({ text: 'The speaker explains how lighthouse keepers trimmed the lamp wicks every night.' }),
    },
  });
  ({ organizationId: org, owner } = await createOrg());
  kb = await h.newKnowledgeBase(org);
});
afterAll(() => h?.close());

const createOrg = () => h.newOrganization('pipeline');
const text = (n: number) =>
  Array.from(
    { length: n },
    (_, i) => `Paragraph ${i} explains the ${['harbour', 'lighthouse', 'ferry', 'tide'][i % 4]} schedule for sailors in detail.`,
  ).join('\n\n');
const job = (documentId: string, jobId: string, attempt = 1): Job<IngestJobPayload> => ({
  id: jobId,
  queue: INGEST_QUEUE,
  payload: { organizationId: org, documentId },
  attempt,
});
const doc = (id: string) => h.deps.store.repos.documents.findById(org, id);
const count = (id: string) => h.deps.vectorIndex.countByDocument(org, id);

async function uploaded(name = 'harbour.txt', body = text(40)) {
  const r = await uploadDocument(h.deps, owner, kb.id, { filename: name, bytes: Buffer.from(body) });
  return { id: r.document.id, jobId: r.jobId };
}

describe('ingestion pipeline', () => {
  it('loads, chunks, embeds, stores and summarises: pending -> processing -> completed, billed at 0', async () => {
    const { id, jobId } = await uploaded();
    expect((await doc(id))!.processingStatus).toBe('pending');
    expect(await processIngestJob(h.deps, job(id, jobId))).toBe('completed');
    const d = (await doc(id))!;
    expect(d).toMatchObject({ processingStatus: 'completed', error: null });
    expect(d.chunkCount).toBeGreaterThan(3);
    expect(await count(id)).toBe(d.chunkCount);
    expect(d.summary).toMatch(/schedule/);
    expect(d.topics.length).toBeGreaterThan(0);
    expect(d.contentHash).toMatch(/^[0-9a-f]{64}$/);
    expect(d.metadata).toMatchObject({ counters: { chunks: d.chunkCount, chunksWritten: d.chunkCount } });
    // each step that ran is timed, so an operator sees where a slow document spent its time
    const stepMs = (d.metadata as { stepMs: Record<string, number> }).stepMs;
    expect(Object.keys(stepMs)).toEqual(expect.arrayContaining(['load', 'chunk', 'embed', 'store']));
    for (const ms of Object.values(stepMs)) expect(ms).toBeGreaterThanOrEqual(0);
    const events = await h.deps.store.repos.billingEvents.listRecent(org, 10);
    expect(events.find((e) => e.reference.documentId === id)).toMatchObject({
      kind: 'document_processing',
      model: 'local/hash-embed-v1',
      costUsd: 0,
    });
  });

  it('is idempotent under redelivery: a finished job is skipped, a crashed run re-done without duplicates', async () => {
    const { id, jobId } = await uploaded('tides.txt', text(30));
    await Promise.all([processIngestJob(h.deps, job(id, jobId)), processIngestJob(h.deps, job(id, jobId, 2))]);
    const chunks = (await doc(id))!.chunkCount;
    expect(await count(id)).toBe(chunks);
    expect(await processIngestJob(h.deps, job(id, jobId, 2))).toBe('skipped');
    // the worker died after writing vectors: the row still says processing when the job comes back
    await h.deps.store.repos.documents.update(org, id, { processingStatus: 'processing' });
    expect(await processIngestJob(h.deps, job(id, jobId, 3))).toBe('completed');
    expect(await count(id)).toBe(chunks);
  });

  it('skips a document deleted before its job runs, and removes chunks of one deleted mid-way', async () => {
    const before = await uploaded('gone.txt');
    await h.deps.store.repos.documents.delete(org, before.id);
    expect(await processIngestJob(h.deps, job(before.id, before.jobId))).toBe('skipped');
    expect(await count(before.id)).toBe(0);

    const during = await uploaded('vanishing.txt');
    const deleter: IngestionStep = {
      id: 'delete-meanwhile',
      run: async (ctx) => void (await h.deps.store.repos.documents.delete(org, ctx.document.id)),
    };
    expect(await processIngestJob(h.deps, job(during.id, during.jobId), [...defaultIngestionSteps, deleter])).toBe('skipped');
    expect(await count(during.id)).toBe(0);
  });

  it('ignores a stale job once the document was retried with a new one', async () => {
    const { id, jobId } = await uploaded('stale.txt');
    await h.deps.store.repos.documents.update(org, id, { processingStatus: 'failed', error: 'boom' });
    const retried = await retryDocument(h.deps, owner, kb.id, id);
    expect(await processIngestJob(h.deps, job(id, jobId))).toBe('skipped');
    expect(await processIngestJob(h.deps, job(id, retried.jobId))).toBe('completed');
    await expect(retryDocument(h.deps, owner, kb.id, id)).rejects.toMatchObject({ code: 'INVALID_STATE' });
  });

  it('retries transient failures (back to pending with the reason), then fails on the last attempt', async () => {
    const { id, jobId } = await uploaded('flaky.txt');
    const flaky = {
      ...h.deps,
      embedder: {
        id: 'x',
        model: h.deps.embedder.model,
        embed: async () => Promise.reject(new DomainError('UPSTREAM_FAILED', 'provider returned 503')),
      },
    };
    await expect(processIngestJob(flaky, job(id, jobId, 1))).rejects.toThrow('503');
    expect(await doc(id)).toMatchObject({ processingStatus: 'pending', error: 'Attempt 1 of 3 failed, retrying: provider returned 503' });
    await expect(processIngestJob(flaky, job(id, jobId, 2))).rejects.toThrow('503');
    expect(await processIngestJob(flaky, job(id, jobId, 3))).toBe('failed');
    expect(await doc(id)).toMatchObject({ processingStatus: 'failed', error: 'provider returned 503', chunkCount: 0 });
  });

  it('refuses audio at upload without a transcriber; one stored before it went away fails with the reason, leaving no chunks', async () => {
    const bare = {
      ...h.deps,
      loader: new (await import('../../adapters/documents/multi-format.document-loader')).MultiFormatDocumentLoader(),
    };
    await expect(uploadDocument(bare, owner, kb.id, { filename: 'memo.wav', bytes: makeWav() })).rejects.toMatchObject({
      code: 'NO_MODEL_FOR_FILE_TYPE',
      message: expect.stringContaining('transcription model'),
    });
    const r = await uploadDocument(h.deps, owner, kb.id, { filename: 'memo.wav', bytes: makeWav() });
    expect(await processIngestJob(bare, job(r.document.id, r.jobId))).toBe('failed');
    expect(await doc(r.document.id)).toMatchObject({
      processingStatus: 'failed',
      error: 'Audio transcription needs a transcription model; none is configured',
    });
    expect(await count(r.document.id)).toBe(0);
  });

  it('indexes audio through a configured transcriber as transcript chunks', async () => {
    const r = await uploadDocument(h.deps, owner, kb.id, { filename: 'memo.wav', bytes: makeWav() });
    expect(await processIngestJob(h.deps, job(r.document.id, r.jobId))).toBe('completed');
    const hits = await h.deps.vectorIndex.search({
      organizationId: org,
      knowledgeBaseIds: [kb.id],
      embedding: null,
      text: 'lighthouse keepers wicks',
      candidatesPerKnowledgeBase: 5,
    });
    expect(hits.text[0].chunk).toMatchObject({ documentId: r.document.id, embeddingType: 'transcript' });
  });

  it('completes despite a failing optional step, and compensates stored chunks when a required step fails later', async () => {
    const a = await uploaded('optional.txt');
    const optional: IngestionStep = { id: 'graph', optional: true, run: async () => Promise.reject(new Error('graph store down')) };
    expect(await processIngestJob(h.deps, job(a.id, a.jobId), [...defaultIngestionSteps, optional])).toBe('completed');
    expect((await doc(a.id))!.metadata.warnings).toEqual({ graph: 'Processing failed unexpectedly: graph store down' });

    const b = await uploaded('required.txt');
    const required: IngestionStep = {
      id: 'validate',
      run: async () => Promise.reject(new DomainError('VALIDATION', 'rejected by policy')),
    };
    expect(await processIngestJob(h.deps, job(b.id, b.jobId), [...defaultIngestionSteps, required])).toBe('failed');
    expect(await doc(b.id)).toMatchObject({ processingStatus: 'failed', error: 'rejected by policy' });
    expect(await count(b.id)).toBe(0);
  });
});

describe('a required step failing part-way', () => {
  it('is compensated itself: a store that wrote some rows before failing leaves none', async () => {
    const a = await uploaded('half-stored.txt');
    const halfThenFail: IngestionStep = {
      ...storeStep,
      run: async (ctx) => {
        const half = { ...ctx, chunks: ctx.chunks.slice(0, Math.ceil(ctx.chunks.length / 2)) };
        await storeStep.run(half);
        expect(await count(a.id)).toBeGreaterThan(0);
        throw new DomainError('VALIDATION', 'the store refused the rest');
      },
    };
    const steps = defaultIngestionSteps.map((s) => (s.id === 'store' ? halfThenFail : s));
    expect(await processIngestJob(h.deps, job(a.id, a.jobId), steps)).toBe('failed');
    expect(await doc(a.id)).toMatchObject({ processingStatus: 'failed', error: 'the store refused the rest', chunkCount: 0 });
    expect(await count(a.id)).toBe(0);
  });
});

describe('work a step prepares early', () => {
  const storeNamed = (onDone: () => void): IngestionStep => ({
    ...storeStep,
    run: async (ctx) => {
      await storeStep.run(ctx);
      onDone();
    },
  });
  const withStep = (store: IngestionStep, extra: IngestionStep) =>
    defaultIngestionSteps.flatMap((s) => (s.id === 'store' ? [store, extra] : [s]));

  it('starts once the step it needs has finished, runs beside the steps in between, and is handed to its run', async () => {
    const a = await uploaded('prepared.txt');
    let stored = false;
    let handed: unknown = null;
    const extra: IngestionStep = {
      id: 'extra',
      prepare: { after: 'chunk', start: async (ctx) => ({ chunks: ctx.chunks.length, storedAtStart: stored }) },
      run: async (ctx) => {
        handed = await ctx.prepared.get('extra');
      },
    };
    const steps = withStep(
      storeNamed(() => (stored = true)),
      extra,
    );
    expect(await processIngestJob(h.deps, job(a.id, a.jobId), steps)).toBe('completed');
    expect(handed).toEqual({ chunks: (await doc(a.id))!.chunkCount, storedAtStart: false });
  });

  it('fails only its own step when it fails, and a document failing earlier leaves no unhandled rejection', async () => {
    const a = await uploaded('prepared-failing.txt');
    const failing = (id: string): IngestionStep => ({
      id,
      optional: true,
      prepare: { after: 'chunk', start: () => Promise.reject(new Error('extractor crashed')) },
      run: async (ctx) => void (await ctx.prepared.get(id)),
    });
    expect(await processIngestJob(h.deps, job(a.id, a.jobId), withStep(storeStep, failing('extra')))).toBe('completed');
    expect((await doc(a.id))!.metadata.warnings).toEqual({ extra: 'Processing failed unexpectedly: extractor crashed' });

    const b = await uploaded('prepared-never-run.txt');
    const refusingStore: IngestionStep = { id: 'store', run: () => Promise.reject(new DomainError('VALIDATION', 'rejected by policy')) };
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      expect(await processIngestJob(h.deps, job(b.id, b.jobId), withStep(refusingStore, failing('extra')))).toBe('failed');
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('unhandledRejection', record);
    }
    expect(await doc(b.id)).toMatchObject({ processingStatus: 'failed', error: 'rejected by policy' });
    expect(unhandled).toEqual([]);
  });
});

describe('ingestion of a document large enough to be staged before its HNSW links', () => {
  it('completes searchable at once, and a failure after storing leaves no chunk staged or indexed', async () => {
    const body = `${text(3000)}\n\nThe zeppelin mooring mast stood beside the harbour.`;
    const big = await uploaded('big.txt', body);
    expect(await processIngestJob(h.deps, job(big.id, big.jobId))).toBe('completed');
    const d = (await doc(big.id))!;
    expect(d.chunkCount).toBeGreaterThan(256); // above the harness's staging threshold (256)
    expect(await count(big.id)).toBe(d.chunkCount);
    const found = await h.deps.vectorIndex.search({
      organizationId: org,
      knowledgeBaseIds: [kb.id],
      embedding: null,
      text: 'zeppelin mooring',
      candidatesPerKnowledgeBase: 5,
    });
    expect(found.text[0]?.chunk.documentId).toBe(big.id);

    const failing = await uploaded('big-failing.txt', body);
    const required: IngestionStep = {
      id: 'validate',
      run: async () => Promise.reject(new DomainError('VALIDATION', 'rejected by policy')),
    };
    expect(await processIngestJob(h.deps, job(failing.id, failing.jobId), [...defaultIngestionSteps, required])).toBe('failed');
    expect(await count(failing.id)).toBe(0);
    await (h.deps.vectorIndex as PgvectorVectorIndex).whenIndexed();
    expect(await count(failing.id)).toBe(0);
    expect(await count(big.id)).toBe(d.chunkCount);
  });
});

describe('ingestText (source items)', () => {
  it('creates, skips unchanged text, updates changed text in place, and records item hashes', async () => {
    const now = new Date().toISOString();
    const sourceId = (
      await h.db
        .knex('sources')
        .insert({
          id: crypto.randomUUID(),
          organization_id: org,
          knowledge_base_id: kb.id,
          url: 'https://blog.example/feed',
          created_at: now,
          updated_at: now,
        })
        .returning('id')
    )[0].id;
    const base = { organizationId: org, knowledgeBaseId: kb.id, sourceId, itemKey: 'post-1', title: 'Ferry timetable' };
    const created = await ingestText(h.deps, { ...base, text: 'The ferry leaves at nine.  ', contentType: 'text/html' });
    expect(created.outcome).toBe('created');
    expect(await processIngestJob(h.deps, job(created.document.id, created.jobId!))).toBe('completed');
    const same = await ingestText(h.deps, { ...base, text: 'The ferry leaves at nine.' });
    expect(same).toMatchObject({ outcome: 'unchanged', jobId: null, contentHash: created.contentHash });
    const changed = await ingestText(h.deps, { ...base, text: 'The ferry now leaves at ten.' });
    expect(changed).toMatchObject({ outcome: 'updated', document: { id: created.document.id, processingStatus: 'pending' } });
    expect(await processIngestJob(h.deps, job(created.document.id, changed.jobId!))).toBe('completed');
    const hits = await h.deps.vectorIndex.search({
      organizationId: org,
      knowledgeBaseIds: [kb.id],
      embedding: null,
      text: 'ferry leaves',
      candidatesPerKnowledgeBase: 10,
    });
    expect(hits.text.filter((c) => c.chunk.documentId === created.document.id).map((c) => c.chunk.content)).toEqual([
      'The ferry now leaves at ten.',
    ]);
    expect(await h.deps.store.repos.sources.findItem(sourceId, 'post-1')).toEqual({
      sourceId,
      itemKey: 'post-1',
      contentHash: changed.contentHash,
      documentId: created.document.id,
    });
    expect((await doc(created.document.id))!.metadata).toMatchObject({ contentType: 'text/html' });

    expect(await removeDocument(h.deps, org, created.document.id)).toEqual({ deleted: true, chunksDeleted: 1 });
    expect(await h.deps.store.repos.sources.findItem(sourceId, 'post-1')).toMatchObject({ documentId: null });
  });
});
