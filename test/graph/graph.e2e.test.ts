import { createKb, expectError, upload, waitForDocument } from '../knowledge/knowledge-support';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { joinOrganization, registerUser, type TestUser } from '../support/users';
import { CORPUS } from './corpus';

let p: TestPlatform;
let owner: TestUser;
let viewer: TestUser;
let outsider: TestUser;
let kbId: string;
let docId: string;

const g = (suffix: string) => `/api/knowledge/kb/${kbId}/graph${suffix}`;
const text = CORPUS.map((c) => c.text).join('\n\n');

async function waitForJob(token: string, jobId: string) {
  for (let i = 0; i < 200; i++) {
    const r = await p.http.get(`/api/jobs/${jobId}`, { token });
    if (r.body?.status === 'completed' || r.body?.status === 'failed') return r.body;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('job did not finish');
}

beforeAll(async () => {
  p = await startTestPlatform();
  owner = await registerUser(p.http, { label: 'graph-owner' });
  viewer = await joinOrganization(p.http, owner, owner.orgId, await registerUser(p.http, { label: 'graph-viewer' }), 'viewer');
  outsider = await registerUser(p.http, { label: 'graph-outsider' });
  kbId = (await createKb(p, owner.accessToken, { name: 'Victorians' })).id;
  const r = await upload(p, `/api/knowledge/kb/${kbId}/documents`, owner.accessToken, {
    name: 'victorians.txt',
    bytes: Buffer.from(text),
    type: 'text/plain',
  });
  docId = r.body.document.id;
  const done = await waitForDocument(p, owner.accessToken, kbId, docId);
  expect(done).toMatchObject({ processingStatus: 'completed', graphStatus: 'completed' });
}, 300_000);
afterAll(() => p?.close());

describe('knowledge graph endpoints', () => {
  it('lists entities with filters and paging, and opens one with its 1-hop neighbourhood', async () => {
    const all = await p.http.get(g('/entities'), { token: viewer.accessToken });
    expect(all.status).toBe(200);
    expect(all.body.total).toBeGreaterThan(20);
    const people = await p.http.get(g('/entities?type=person&search=lovelace'), { token: viewer.accessToken });
    expect(people.body.entities.map((e: any) => e.name)).toEqual(['Ada Lovelace']);
    const ada = people.body.entities[0];
    expect(ada).toMatchObject({ type: 'person', documentIds: [docId], aliases: expect.arrayContaining(['Lovelace']) });
    expect(ada.mentionCount).toBeGreaterThanOrEqual(4);
    expect(
      (await p.http.get(g(`/entities?documentId=${docId}&limit=2&offset=1`), { token: viewer.accessToken })).body.entities,
    ).toHaveLength(2);
    const detail = await p.http.get(g(`/entities/${ada.id}`), { token: viewer.accessToken });
    expect(detail.status).toBe(200);
    expect(detail.body.connectedEntities.map((e: any) => e.name)).toEqual(
      expect.arrayContaining(['Charles Babbage', 'Augustus De Morgan']),
    );
    expect(detail.body.relationships).toContainEqual(
      expect.objectContaining({ sourceEntityId: ada.id, type: 'worked_with', documentId: docId }),
    );
    const stats = await p.http.get(g('/stats'), { token: viewer.accessToken });
    expect(stats.body.stats).toMatchObject({
      totalEntities: all.body.total,
      entitiesByType: expect.objectContaining({ person: expect.any(Number) }),
    });
  });

  it('enforces RBAC: viewers read but cannot change, another organization gets 404', async () => {
    const [e] = (await p.http.get(g('/entities?limit=1'), { token: owner.accessToken })).body.entities;
    expectError(await p.http.patch(g(`/entities/${e.id}`), { name: 'X' }, { token: viewer.accessToken }), 403);
    expectError(await p.http.get(g('/entities'), { token: outsider.accessToken }), 404);
    expectError(await p.http.get(g(`/entities/${e.id}`), { token: outsider.accessToken }), 404);
    expectError(await p.http.post(g('/optimize/generate'), {}, { token: outsider.accessToken }), 404);
  });

  it('renames (old name kept as alias) and merges (names become aliases, relationships re-pointed)', async () => {
    const find = async (s: string) =>
      (await p.http.get(g(`/entities?search=${encodeURIComponent(s)}`), { token: owner.accessToken })).body.entities;
    const [boole] = await find('George Boole');
    const renamed = await p.http.patch(g(`/entities/${boole.id}`), { name: 'George Boole (logician)' }, { token: owner.accessToken });
    expect(renamed.body.entity).toMatchObject({ name: 'George Boole (logician)', aliases: expect.arrayContaining(['George Boole']) });
    const [darwin] = await find('Charles Darwin');
    const [wallace] = await find('Alfred Russel Wallace');
    const merged = await p.http.post(g(`/entities/${darwin.id}/merge`), { mergeEntityIds: [wallace.id] }, { token: owner.accessToken });
    expect(merged.body).toEqual({ message: expect.any(String), canonicalEntityId: darwin.id, mergedCount: 1 });
    expectError(await p.http.get(g(`/entities/${wallace.id}`), { token: owner.accessToken }), 404);
    const after = await p.http.get(g(`/entities/${darwin.id}`), { token: owner.accessToken });
    expect(after.body.entity.aliases).toContain('Alfred Russel Wallace');
    expect(after.body.entity.mentionCount).toBe(darwin.mentionCount + wallace.mentionCount);
    expect(after.body.relationships.every((r: any) => r.sourceEntityId !== r.targetEntityId)).toBe(true);
    const del = await p.http.delete(g(`/entities/${darwin.id}`), { token: owner.accessToken });
    expect(del.status).toBe(204);
  });

  it('generates suggestions in a job, lists issues with counts, approves and applies', async () => {
    const started = await p.http.post(g('/optimize/generate'), {}, { token: owner.accessToken });
    expect(started.body).toEqual({ message: expect.any(String), jobId: expect.any(String) });
    expect(await waitForJob(owner.accessToken, started.body.jobId)).toMatchObject({ status: 'completed', kind: 'graph_optimization' });
    const issues = await p.http.get(g('/issues?category=nonsense&limit=500'), { token: viewer.accessToken });
    expect(issues.body).toMatchObject({ category: 'all', limit: 200, offset: 0 });
    expect(Object.keys(issues.body.counts).sort()).toEqual(['duplicate', 'low_confidence', 'needs_review', 'orphan', 'remove', 'rename']);
    expect(issues.body.total).toBe(Object.values(issues.body.counts).reduce((a: number, b: any) => a + b, 0));
    const kinds = issues.body.issues.map((i: any) => i.kind);
    expect(kinds.indexOf('entity') === -1 || kinds.lastIndexOf('suggestion') < kinds.indexOf('entity')).toBe(true);
    const low = await p.http.get(g('/issues?category=low_confidence&limit=0'), { token: viewer.accessToken });
    expect(low.body).toMatchObject({ total: issues.body.counts.low_confidence, limit: 1 });

    const pending = await p.http.get(g('/optimize/suggestions?status=pending'), { token: viewer.accessToken });
    expect(pending.body.total).toBeGreaterThan(0);
    const s = pending.body.suggestions[0];
    const approved = await p.http.patch(g(`/optimize/suggestions/${s.id}`), { status: 'approved' }, { token: owner.accessToken });
    expect(approved.body.suggestion).toMatchObject({ id: s.id, status: 'approved' });
    const other = pending.body.suggestions[1];
    const applied = await p.http.post(g('/optimize/apply'), { suggestionIds: [s.id, other.id] }, { token: owner.accessToken });
    expect(applied.body).toEqual({
      applied: 1,
      failed: 1,
      errors: [{ suggestionId: other.id, error: expect.stringContaining('approved') }],
    });
    const stats = await p.http.get(g('/optimize/stats'), { token: viewer.accessToken });
    expect(stats.body.byStatus.applied).toBe(1);

    const resolve = await p.http.post(g('/optimize/ai-resolve'), {}, { token: owner.accessToken });
    expect(await waitForJob(owner.accessToken, resolve.body.jobId)).toMatchObject({ status: 'completed' });
    expect((await p.http.get(g('/optimize/suggestions?status=pending'), { token: viewer.accessToken })).body.total).toBe(0);
  });

  it('stores pinned entities and searches the graph', async () => {
    const put = await p.http.request('PUT', g('/pinned-entities'), {
      token: owner.accessToken,
      body: { entities: [{ name: 'Analytical Engine', type: 'Product', aliases: ['the engine'] }] },
    });
    expect(put.status).toBe(200);
    expect((await p.http.get(g('/pinned-entities'), { token: viewer.accessToken })).body).toEqual({
      entities: [{ name: 'Analytical Engine', type: 'product', aliases: ['the engine'] }],
    });
    const s = await p.http.post(g('/search'), { query: 'Who worked with Charles Babbage?' }, { token: viewer.accessToken });
    expect(s.body.matchedEntityNames).toContain('Charles Babbage');
    expect(s.body.entities.map((e: any) => e.name)).toContain('Ada Lovelace');
    expect(s.body.formattedContext).toContain('worked_with');
    expectError(
      await p.http.post(g('/search'), { query: 'x', imageBase64: 'aGVsbG8=', mimeType: 'image/png' }, { token: viewer.accessToken }),
      400,
    );
  });

  it('search tags results found through the graph with discoveryMethods graph and a relationshipPath', async () => {
    const r = await p.http.post(
      '/api/knowledge/search',
      { knowledgeBaseIds: [kbId], query: 'Michael Faraday' },
      { token: viewer.accessToken },
    );
    expect(r.status).toBe(200);
    const viaGraph = r.body.results.filter((x: any) => x.discoveryMethods.includes('graph'));
    expect(viaGraph.length).toBeGreaterThan(0);
    expect(viaGraph[0].relationshipPath).toEqual(expect.arrayContaining([expect.any(String)]));
  });

  it('document delete removes its graph contribution', async () => {
    const del = await p.http.delete(`/api/knowledge/kb/${kbId}/documents/${docId}`, { token: owner.accessToken });
    expect(del.status).toBe(200);
    expect((await p.http.get(g('/stats'), { token: owner.accessToken })).body.stats).toMatchObject({
      totalEntities: 0,
      totalRelationships: 0,
    });
  });
});
