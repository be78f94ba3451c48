import type { Actor } from '../../core/identity/actor';
import { uploadDocument } from '../../core/knowledge/documents';
import { processIngestJob } from '../../core/knowledge/ingest-document';
import { INGEST_QUEUE } from '../../core/knowledge/knowledge-deps';
import { searchKnowledge } from '../../core/knowledge/search';
import { createKnowledgeHarness, type KnowledgeHarness, paidEmbedder } from './knowledge-harness';

let h: KnowledgeHarness;
let org: string;
let owner: Actor;
let kbId: string;
beforeAll(async () => {
  h = await createKnowledgeHarness({
    embedder: paidEmbedder,
    dimensions: 64,
    imageDescriber: {
      model: 'fake/vision',
      describe: async () => ({ caption: 'A photo of a red lighthouse on a rocky coast', text: 'KEEP OUT' }),
    },
  });
  ({ organizationId: org, owner } = await h.newOrganization('billing'));
  kbId = (await h.newKnowledgeBase(org)).id;
});
afterAll(() => h?.close());

const events = () => h.deps.store.repos.billingEvents.listRecent(org, 50);
async function ingest(name: string, text: string) {
  const r = await uploadDocument(h.deps, owner, kbId, { filename: name, bytes: Buffer.from(text) });
  await processIngestJob(h.deps, {
    id: r.jobId,
    queue: INGEST_QUEUE,
    attempt: 1,
    payload: { organizationId: org, documentId: r.document.id },
  });
  return (await h.deps.store.repos.documents.findById(org, r.document.id))!;
}

describe('search and billing with a paid embedding model', () => {
  it('bills document processing and searches at provider cost times the margin', async () => {
    const doc = await ingest('lighthouse.txt', 'The red lighthouse on the rocky coast guides ships at night with a rotating lamp.');
    expect(doc.processingStatus).toBe('completed');
    const processing = (await events()).find((e) => e.kind === 'document_processing')!;
    expect(processing).toMatchObject({ model: 'openai/text-embedding-3-large', promptTokens: 100 });
    expect(processing.providerCostUsd).toBeCloseTo(100 * 0.13e-6, 10);
    expect(processing.costUsd).toBeCloseTo(100 * 0.13e-6 * 1.5, 10);

    const r = await searchKnowledge(h.deps, owner, { knowledgeBaseIds: [kbId], query: 'lighthouse lamp' });
    expect(r.results[0].metadata.documentTitle).toBe('lighthouse.txt');
    const search = (await events()).find((e) => e.kind === 'knowledge_search')!;
    expect(search).toMatchObject({
      model: 'openai/text-embedding-3-large',
      promptTokens: 100,
      reference: { knowledgeBaseIds: [kbId], source: 'manual' },
    });
  });

  it('describes images with the configured vision model and tags those hits as image discoveries', async () => {
    const r = await searchKnowledge(h.deps, owner, {
      knowledgeBaseIds: [kbId],
      images: [{ base64: Buffer.from('png').toString('base64'), mimeType: 'image/png' }],
    });
    expect(r.results[0]).toMatchObject({ metadata: { documentTitle: 'lighthouse.txt' }, discoveryMethods: ['image'] });
    const both = await searchKnowledge(h.deps, owner, {
      knowledgeBaseIds: [kbId],
      query: 'rotating lamp lighthouse',
      images: [{ base64: 'AA==', mimeType: 'image/png' }],
    });
    expect(both.results[0].discoveryMethods).toEqual(['semantic', 'image']);
  });

  it('refuses paid work on an empty wallet: search 402, documents fail with the reason', async () => {
    const wallet = (await h.deps.store.repos.wallets.find(org))!;
    await h.deps.store.repos.wallets.adjust(org, -wallet.balanceUsd, new Date().toISOString());
    await expect(searchKnowledge(h.deps, owner, { knowledgeBaseIds: [kbId], query: 'lighthouse' })).rejects.toMatchObject({
      code: 'INSUFFICIENT_CREDITS',
    });
    const doc = await ingest('broke.txt', 'Nothing can be embedded without credits.');
    expect(doc).toMatchObject({ processingStatus: 'failed', error: expect.stringMatching(/no credits left/) });
  });
});
