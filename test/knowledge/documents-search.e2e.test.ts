import { randomUUID } from 'node:crypto';

import { startTestPlatform, type TestPlatform } from '../support/platform';
import { joinOrganization, registerUser, type TestUser } from '../support/users';
import { type FixtureFile, mediaFiles, processableFiles } from './file-fixtures';
import { createKb, expectError, upload, waitForDocument } from './knowledge-support';

const MAX_BYTES = 200_000;
let p: TestPlatform;
let owner: TestUser;
let viewer: TestUser;
let outsider: TestUser;
let kbId: string;
let files: FixtureFile[];
const docs = new Map<string, any>();

beforeAll(async () => {
  p = await startTestPlatform({ UPLOAD_MAX_BYTES: String(MAX_BYTES) });
  owner = await registerUser(p.http, { label: 'docs-owner' });
  viewer = await joinOrganization(p.http, owner, owner.orgId, await registerUser(p.http, { label: 'docs-viewer' }), 'viewer');
  outsider = await registerUser(p.http, { label: 'docs-outsider' });
  kbId = (await createKb(p, owner.accessToken, { name: 'Hobbies' })).id;
  files = await processableFiles();
});
afterAll(() => p?.close());

const docPath = (id = '') => `/api/knowledge/kb/${kbId}/documents${id ? `/${id}` : ''}`;
const search = (token: string, body: Record<string, unknown>, query = '') =>
  p.http.post(`/api/knowledge/search${query}`, { knowledgeBaseIds: [kbId], ...body }, { token });
const storedOriginal = (doc: { id: string; title: string }) => p.infra.blobs.exists(`${owner.orgId}/${kbId}/${doc.id}/${doc.title}`);

describe('documents', () => {
  it('uploads one file of each processable type; each reaches completed with chunks', async () => {
    for (const f of files) {
      const r = await upload(p, docPath(), owner.accessToken, f);
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ jobId: expect.any(String), message: expect.any(String) });
      expect(r.body.document).toMatchObject({
        knowledgeBaseId: kbId,
        title: f.name,
        fileSizeBytes: f.bytes.length,
        processingStatus: 'pending',
        error: null,
        chunkCount: 0,
      });
      docs.set(f.name, r.body.document);
    }
    for (const f of files) {
      const done = await waitForDocument(p, owner.accessToken, kbId, docs.get(f.name).id);
      expect({ name: f.name, status: done.processingStatus, error: done.error }).toEqual({
        name: f.name,
        status: 'completed',
        error: null,
      });
      expect(done.chunkCount).toBeGreaterThan(0);
      expect(await storedOriginal(done)).toBe(true);
      docs.set(f.name, done);
    }
    const list = await p.http.get(docPath(), { token: viewer.accessToken });
    expect(list.body).toMatchObject({ total: files.length, limit: 50, offset: 0 });
    expect((await p.http.get(`${docPath()}?status=completed&limit=2`, { token: owner.accessToken })).body).toMatchObject({
      total: files.length,
      limit: 2,
    });
  });

  it('searches each file by a question only it answers, with the spec result shape', async () => {
    for (const f of files) {
      const r = await search(viewer.accessToken, { query: f.question });
      expect(r.status).toBe(200);
      const top = r.body.results[0];
      expect({ file: f.name, top: top?.metadata.documentTitle }).toEqual({ file: f.name, top: f.name });
      expect(top.content).toContain(f.answer);
      // the graph may have found the same chunk too (spec 2.8): then it says so, with the path
      const { relationshipPath, ...shape } = top;
      expect(shape).toEqual({
        content: expect.any(String),
        score: expect.any(Number),
        knowledgeBaseId: kbId,
        metadata: { documentId: docs.get(f.name).id, documentTitle: f.name, chunkIndex: 0, embeddingType: 'text' },
        discoveryMethods: relationshipPath ? ['semantic', 'graph'] : ['semantic'],
      });
      expect(top.score).toBeGreaterThanOrEqual(0.25);
      expect(top.score).toBeLessThanOrEqual(1);
      expect(r.body.results.length).toBeLessThanOrEqual(3);
      expect(Array.isArray(r.body.suggestedFollowUps)).toBe(true);
    }
    const unrelated = await search(owner.accessToken, { query: 'quantum chromodynamics of gluon plasma' });
    expect(unrelated.body.results).toEqual([]);
  });

  it("searches files' text content, honours topK, and refuses images without a vision model", async () => {
    const viaFile = await search(owner.accessToken, {
      files: [{ content: 'notes about feeding a rye flour starter for sourdough bread', mimeType: 'text/plain' }],
    });
    expect(viaFile.body.results[0].metadata.documentTitle).toBe('sourdough.docx');
    const one = await search(owner.accessToken, { query: 'telescope glacier volcano chess beehive sourdough', topK: 1 });
    expect(one.body.results.length).toBeLessThanOrEqual(1);
    const image = await search(owner.accessToken, { images: [{ base64: Buffer.from('x').toString('base64'), mimeType: 'image/png' }] });
    expectError(image, 400, 'Validation Error');
    expect(image.body.message).toMatch(/vision-capable model/);
  });

  it('validates search: non-empty ids, something to search, readable knowledge bases of the organization', async () => {
    expectError(
      await p.http.post('/api/knowledge/search', { knowledgeBaseIds: [], query: 'x' }, { token: owner.accessToken }),
      400,
      'Validation Error',
    );
    expectError(await search(owner.accessToken, {}), 400, 'Validation Error');
    expectError(await search(owner.accessToken, { query: '   ' }), 400, 'Validation Error');
    expectError(await search(outsider.accessToken, { query: 'chess' }), 404);
    expectError(
      await p.http.post('/api/knowledge/search', { knowledgeBaseIds: [kbId, randomUUID()], query: 'chess' }, { token: owner.accessToken }),
      404,
    );
  });

  it('refuses images, audio and video at upload (422) when no model can process them, storing nothing', async () => {
    const before = (await p.http.get(docPath(), { token: owner.accessToken })).body.total;
    for (const m of mediaFiles()) {
      const r = await upload(p, docPath(), owner.accessToken, m);
      expectError(r, 422, 'Unprocessable Entity');
      expect(r.body.code).toBe('NO_MODEL_FOR_FILE_TYPE');
      expect(r.body.message).toMatch(m.reason);
    }
    expect((await p.http.get(docPath(), { token: owner.accessToken })).body.total).toBe(before);
  });

  it('retry re-queues only failed documents', async () => {
    // Scripts only: nothing readable, so processing fails with the reason.
    const blank = { name: 'blank.html', type: 'text/html', bytes: Buffer.from('<html><body><script>var x = 1;</script></body></html>') };
    const r = await upload(p, docPath(), owner.accessToken, blank);
    expect(r.status).toBe(201);
    const failed = await waitForDocument(p, owner.accessToken, kbId, r.body.document.id);
    expect(failed.processingStatus).toBe('failed');
    expect(failed.error).toMatch(/no readable content/);
    const retry = await p.http.post(`${docPath(failed.id)}/retry`, {}, { token: owner.accessToken });
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual({ message: expect.any(String), documentId: failed.id, jobId: expect.any(String) });
    const again = await waitForDocument(p, owner.accessToken, kbId, failed.id);
    expect(again.error).toMatch(/no readable content/);
    expectError(await p.http.post(`${docPath(docs.get('chess.txt').id)}/retry`, {}, { token: owner.accessToken }), 409);
    expectError(await p.http.post(`${docPath(docs.get('chess.txt').id)}/retry`, {}, { token: viewer.accessToken }), 403);
  });

  it('refuses a form with a second file part (400) instead of dropping it', async () => {
    const form = new FormData();
    form.append('file', new Blob(['first file'], { type: 'text/plain' }), 'one.txt');
    form.append('file', new Blob(['second file'], { type: 'text/plain' }), 'two.txt');
    const res = await fetch(`${p.gatewayUrl}${docPath()}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.accessToken}` },
      body: form,
    });
    const body = (await res.json()) as { message: string };
    expectError({ status: res.status, body }, 400, 'Validation Error');
    expect(body.message).toContain('more than one file part');
  });

  it('refuses mismatched bytes (415) and oversized files (413) before storing anything', async () => {
    const before = (await p.http.get(docPath(), { token: owner.accessToken })).body.total;
    const fake = await upload(p, docPath(), owner.accessToken, {
      name: 'report.pdf',
      type: 'application/pdf',
      bytes: Buffer.from('just text, not a PDF'),
    });
    expectError(fake, 415);
    const renamed = await upload(p, docPath(), owner.accessToken, { name: 'photo.png', type: 'image/png', bytes: files[0].bytes });
    expectError(renamed, 415);
    const unknown = await upload(p, docPath(), owner.accessToken, { name: 'tool.exe', bytes: Buffer.from('MZ') });
    expectError(unknown, 415);
    const big = await upload(p, docPath(), owner.accessToken, {
      name: 'big.txt',
      type: 'text/plain',
      bytes: Buffer.alloc(MAX_BYTES + 1, 'a'),
    });
    expectError(big, 413);
    const noFile = await upload(p, docPath(), owner.accessToken, { name: 'x.txt', bytes: Buffer.from('hello') }, 'other');
    expectError(noFile, 400);
    expect((await p.http.get(docPath(), { token: owner.accessToken })).body.total).toBe(before);
  });

  it('guards uploads: viewer 403, other organization 404', async () => {
    const f = files[2];
    expectError(await upload(p, docPath(), viewer.accessToken, f), 403);
    expectError(await upload(p, docPath(), outsider.accessToken, f), 404);
    expectError(await p.http.get(docPath(), { token: outsider.accessToken }), 404);
    expectError(await p.http.delete(docPath(docs.get('chess.txt').id), { token: outsider.accessToken }), 404);
  });

  it('builds the document map with summaries and topics', async () => {
    const map = await p.http.get(`/api/knowledge/kb/${kbId}/map`, { token: viewer.accessToken });
    expect(map.status).toBe(200);
    expect(map.body).toMatchObject({ knowledgeBaseId: kbId, knowledgeBaseName: 'Hobbies', total: files.length });
    const chess = map.body.documents.find((d: any) => d.title === 'chess.txt');
    expect(chess).toMatchObject({ documentId: docs.get('chess.txt').id, chunkCount: 1 });
    expect(chess.summary).toMatch(/Sicilian Defence/);
    expect(chess.topics.length).toBeGreaterThan(0);
    expectError(await p.http.get(`/api/knowledge/kb/${kbId}/map`, { token: outsider.accessToken }), 404);
  });

  it('logs searches per knowledge base with their origin; viewers read the log, editors clear it', async () => {
    const agentId = randomUUID();
    const conversationId = randomUUID();
    await search(owner.accessToken, { query: 'glacier moraines' }, `?source=agent_rag&agentId=${agentId}&conversationId=${conversationId}`);
    const log = await p.http.get(`/api/knowledge/kb/${kbId}/search/log?limit=2`, { token: viewer.accessToken });
    expect(log.status).toBe(200);
    expect(log.body.limit).toBe(2);
    expect(log.body.total).toBeGreaterThan(5);
    expect(log.body.entries[0]).toMatchObject({
      query: 'glacier moraines',
      source: 'agent_rag',
      agentId,
      conversationId,
      messageId: null,
      userId: owner.id,
      knowledgeBaseId: kbId,
    });
    expect(log.body.entries[0].resultCount).toBeGreaterThan(0);
    expectError(await p.http.delete(`/api/knowledge/kb/${kbId}/search/log`, { token: viewer.accessToken }), 403);
    const cleared = await p.http.delete(`/api/knowledge/kb/${kbId}/search/log`, { token: owner.accessToken });
    expect(cleared.status).toBe(200);
    expect(cleared.body.deleted).toBe(log.body.total);
    expect((await p.http.get(`/api/knowledge/kb/${kbId}/search/log`, { token: owner.accessToken })).body.total).toBe(0);
  });

  it('extracts text without indexing', async () => {
    const r = await upload(
      p,
      '/api/knowledge/extract-text',
      viewer.accessToken,
      files.find((f) => f.name === 'glaciers.html')!,
    );
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ title: 'Glaciers', mimeType: 'text/html', images: [], characterCount: r.body.text.length });
    expect(r.body.text).toContain('summer melting exceeds winter snowfall');
    expect(r.body.text).not.toContain('tracking');
    const image = await upload(p, '/api/knowledge/extract-text', owner.accessToken, mediaFiles()[0]);
    expectError(image, 400);
    expect(image.body.message).toMatch(/vision-capable model/);
    expectError(await upload(p, '/api/knowledge/extract-text', owner.accessToken, { name: 'a.pdf', bytes: Buffer.from('nope') }), 415);
  });

  it('deletes a document with its chunks and file; search no longer finds it', async () => {
    const chess = docs.get('chess.txt');
    expectError(await p.http.delete(docPath(chess.id), { token: viewer.accessToken }), 403);
    const r = await p.http.delete(docPath(chess.id), { token: owner.accessToken });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ message: expect.any(String), documentId: chess.id, chunksDeleted: chess.chunkCount });
    expect(await storedOriginal(chess)).toBe(false);
    const after = await search(owner.accessToken, { query: 'Which moves start the Sicilian Defence in chess?' });
    expect(after.body.results.map((x: any) => x.metadata.documentTitle)).not.toContain('chess.txt');
    expectError(await p.http.delete(docPath(chess.id), { token: owner.accessToken }), 404);
  });

  it('deleting the knowledge base removes documents, vectors and files', async () => {
    const pdf = docs.get('volcanoes.pdf');
    expect(await p.infra.knowledge.vectorIndex.countByDocument(owner.orgId, pdf.id)).toBeGreaterThan(0);
    expect((await p.http.delete(`/api/knowledge/kb/${kbId}`, { token: owner.accessToken })).status).toBe(204);
    expect(await p.infra.knowledge.vectorIndex.countByDocument(owner.orgId, pdf.id)).toBe(0);
    expect(await p.infra.db.knex('knowledge_documents').where({ knowledge_base_id: kbId }).count({ n: '*' })).toEqual([{ n: 0 }]);
    expect(await storedOriginal(pdf)).toBe(false);
  });
});
