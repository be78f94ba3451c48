import { randomUUID } from 'node:crypto';

import { startTestPlatform, type TestPlatform } from '../support/platform';
import { joinOrganization, registerUser, type TestUser } from '../support/users';
import { createAgent, createKb, expectError } from './knowledge-support';

let p: TestPlatform;
let owner: TestUser;
let viewer: TestUser;
let outsider: TestUser;

beforeAll(async () => {
  p = await startTestPlatform({ PLAN_KNOWLEDGE_BASES: '4' });
  owner = await registerUser(p.http, { label: 'kb-owner' });
  viewer = await joinOrganization(p.http, owner, owner.orgId, await registerUser(p.http, { label: 'kb-viewer' }), 'viewer');
  outsider = await registerUser(p.http, { label: 'kb-outsider' });
});
afterAll(() => p?.close());

const auditOf = async (kbId: string) =>
  (await p.infra.db.knex('audit_log').where({ resource_id: kbId }).orderBy('created_at').select('action', 'metadata')).map((r) => r.action);

describe('knowledge base CRUD', () => {
  it('creates with defaults, lists, gets, patches and deletes', async () => {
    const created = await p.http.post(
      '/api/knowledge/kb',
      { name: 'Product docs', description: 'All of it' },
      { token: owner.accessToken },
    );
    expect(created.status).toBe(201);
    const kb = created.body.knowledgeBase;
    expect(kb).toMatchObject({ name: 'Product docs', description: 'All of it', visibility: 'private', organizationId: owner.orgId });
    expect(kb.settings.embedding).toEqual({ model: 'local/hash-embed-v1', dimensions: 1024 });
    expect(kb.settings.chunking).toEqual({ size: 1000, overlap: 200 });

    const list = await p.http.get('/api/knowledge/kb', { token: owner.accessToken });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ total: 1, limit: 50, offset: 0 });
    expect(list.body.knowledgeBases.map((k: any) => k.id)).toEqual([kb.id]);

    expect((await p.http.get(`/api/knowledge/kb/${kb.id}`, { token: viewer.accessToken })).body.knowledgeBase.id).toBe(kb.id);

    const patched = await p.http.patch(
      `/api/knowledge/kb/${kb.id}`,
      { name: 'Docs', visibility: 'shared', settings: { tone: 'formal' } },
      { token: owner.accessToken },
    );
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: kb.id, name: 'Docs', visibility: 'shared' });
    expect(patched.body.knowledgeBase.settings).toMatchObject({ tone: 'formal', embedding: kb.settings.embedding });

    expect((await p.http.delete(`/api/knowledge/kb/${kb.id}`, { token: owner.accessToken })).status).toBe(204);
    expect((await p.http.get(`/api/knowledge/kb/${kb.id}`, { token: owner.accessToken })).status).toBe(404);
    expect(await auditOf(kb.id)).toEqual(['knowledge_base.create', 'knowledge_base.delete']);
  });

  it('validates input: name required, visibility enum, embedding model fixed, chunk overlap below size', async () => {
    expectError(await p.http.post('/api/knowledge/kb', { description: 'x' }, { token: owner.accessToken }), 400, 'Validation Error');
    expectError(
      await p.http.post('/api/knowledge/kb', { name: 'x', visibility: 'secret' }, { token: owner.accessToken }),
      400,
      'Validation Error',
    );
    expectError(
      await p.http.post(
        '/api/knowledge/kb',
        { name: 'x', settings: { embedding: { model: 'openai/text-embedding-3-large' } } },
        { token: owner.accessToken },
      ),
      400,
    );
    expectError(
      await p.http.post(
        '/api/knowledge/kb',
        { name: 'x', settings: { chunking: { size: 500, overlap: 500 } } },
        { token: owner.accessToken },
      ),
      400,
    );
    const small = await createKb(p, owner.accessToken, { name: 'small vectors', settings: { embedding: { dimensions: 256 } } });
    expect(small.settings.embedding.dimensions).toBe(256);
    await p.http.delete(`/api/knowledge/kb/${small.id}`, { token: owner.accessToken });
  });

  it('enforces the plan limit (403 plan_limit); deleting frees a slot', async () => {
    const org = await registerUser(p.http, { label: 'plan' });
    const ids = [];
    for (let i = 0; i < 4; i++) ids.push((await createKb(p, org.accessToken, { name: `kb ${i}` })).id);
    expectError(await p.http.post('/api/knowledge/kb', { name: 'one too many' }, { token: org.accessToken }), 403, 'plan_limit');
    await p.http.delete(`/api/knowledge/kb/${ids[0]}`, { token: org.accessToken });
    expect((await p.http.post('/api/knowledge/kb', { name: 'fits again' }, { token: org.accessToken })).status).toBe(201);
  });

  it('viewers read but cannot create, edit or delete (403); other organizations get 404', async () => {
    const kb = await createKb(p, owner.accessToken, { name: 'guarded' });
    expectError(await p.http.post('/api/knowledge/kb', { name: 'viewer kb' }, { token: viewer.accessToken }), 403);
    expectError(await p.http.patch(`/api/knowledge/kb/${kb.id}`, { name: 'renamed' }, { token: viewer.accessToken }), 403);
    expectError(await p.http.delete(`/api/knowledge/kb/${kb.id}`, { token: viewer.accessToken }), 403);
    for (const r of [
      await p.http.get(`/api/knowledge/kb/${kb.id}`, { token: outsider.accessToken }),
      await p.http.patch(`/api/knowledge/kb/${kb.id}`, { name: 'x' }, { token: outsider.accessToken }),
      await p.http.delete(`/api/knowledge/kb/${kb.id}`, { token: outsider.accessToken }),
      await p.http.get(`/api/knowledge/kb/${randomUUID()}`, { token: owner.accessToken }),
    ])
      expectError(r, 404);
    expect((await p.http.get('/api/knowledge/kb', { token: outsider.accessToken })).body.total).toBe(0);
    await p.http.delete(`/api/knowledge/kb/${kb.id}`, { token: owner.accessToken });
  });
});

describe('agent links', () => {
  it('links with permissions and priority, lists with source health, unlinks (audited)', async () => {
    const kbA = await createKb(p, owner.accessToken, { name: 'Alpha' });
    const kbB = await createKb(p, owner.accessToken, { name: 'Beta' });
    const agent = await createAgent(p, owner.accessToken, 'Linker');
    const link = await p.http.post(
      `/api/knowledge/kb/${kbA.id}/agents/${agent.id}`,
      { permissions: { read: true }, priority: 5 },
      { token: owner.accessToken },
    );
    expect(link.status).toBe(200);
    expect(link.body).toEqual({ message: expect.any(String), knowledgeBaseId: kbA.id, agentId: agent.id });
    expect((await p.http.post(`/api/knowledge/kb/${kbB.id}/agents/${agent.id}`, {}, { token: owner.accessToken })).status).toBe(200);

    // one healthy and one failing source on Beta
    const now = new Date().toISOString();
    const failing = randomUUID();
    await p.infra.db.knex('sources').insert([
      {
        id: randomUUID(),
        organization_id: owner.orgId,
        knowledge_base_id: kbB.id,
        url: 'https://ok.example',
        created_at: now,
        updated_at: now,
      },
      {
        id: failing,
        organization_id: owner.orgId,
        knowledge_base_id: kbB.id,
        url: 'https://down.example/feed',
        last_sync_error: 'HTTP 503',
        sync_health: 'failing',
        created_at: now,
        updated_at: now,
      },
    ]);
    const listed = await p.http.get(`/api/knowledge/agents/${agent.id}/kbs`, { token: viewer.accessToken });
    expect(listed.status).toBe(200);
    expect(listed.body.count).toBe(2);
    const [first, second] = listed.body.knowledgeBases;
    expect(first).toMatchObject({
      id: kbA.id,
      name: 'Alpha',
      permissions: { read: true },
      priority: 5,
      syncHealth: 'healthy',
      failedSourceCount: 0,
      failedSources: [],
    });
    expect(Date.parse(first.linked_at)).toBeGreaterThan(0);
    expect(second).toMatchObject({
      id: kbB.id,
      priority: 0,
      syncHealth: 'degraded',
      failedSourceCount: 1,
      failedSources: [{ sourceId: failing, sourceUrl: 'https://down.example/feed', lastSyncError: 'HTTP 503' }],
    });

    const unlink = await p.http.delete(`/api/knowledge/kb/${kbA.id}/agents/${agent.id}`, { token: owner.accessToken });
    expect(unlink.status).toBe(200);
    expect(typeof unlink.body.message).toBe('string');
    expectError(await p.http.delete(`/api/knowledge/kb/${kbA.id}/agents/${agent.id}`, { token: owner.accessToken }), 404);
    expect((await p.http.get(`/api/knowledge/agents/${agent.id}/kbs`, { token: owner.accessToken })).body.count).toBe(1);
    expect(await auditOf(kbA.id)).toEqual(['knowledge_base.create', 'knowledge_base.connect', 'knowledge_base.disconnect']);

    // deleting a knowledge base removes its links
    await p.http.delete(`/api/knowledge/kb/${kbB.id}`, { token: owner.accessToken });
    expect((await p.http.get(`/api/knowledge/agents/${agent.id}/kbs`, { token: owner.accessToken })).body.count).toBe(0);
    await p.http.delete(`/api/knowledge/kb/${kbA.id}`, { token: owner.accessToken });
  });

  it('needs edit on both sides (viewer 403) and the same organization (404)', async () => {
    const kb = await createKb(p, owner.accessToken, { name: 'own' });
    const agent = await createAgent(p, owner.accessToken, 'Own agent');
    const foreignKb = await createKb(p, outsider.accessToken, { name: 'foreign' });
    const foreignAgent = await createAgent(p, outsider.accessToken, 'Foreign agent');
    expectError(await p.http.post(`/api/knowledge/kb/${kb.id}/agents/${agent.id}`, {}, { token: viewer.accessToken }), 403);
    expectError(await p.http.post(`/api/knowledge/kb/${kb.id}/agents/${foreignAgent.id}`, {}, { token: owner.accessToken }), 404);
    expectError(await p.http.post(`/api/knowledge/kb/${foreignKb.id}/agents/${agent.id}`, {}, { token: owner.accessToken }), 404);
    expectError(await p.http.get(`/api/knowledge/agents/${foreignAgent.id}/kbs`, { token: owner.accessToken }), 404);
    expectError(await p.http.get(`/api/knowledge/agents/${foreignAgent.id}/delete-impact`, { token: owner.accessToken }), 404);
    await p.http.delete(`/api/knowledge/kb/${kb.id}`, { token: owner.accessToken });
    await p.http.delete(`/api/knowledge/kb/${foreignKb.id}`, { token: outsider.accessToken });
  });

  it('reports delete impact: counts, shared knowledge bases with up to five other agents', async () => {
    const org = await registerUser(p.http, { label: 'impact' });
    const main = await createAgent(p, org.accessToken, 'Main');
    const others = [];
    for (let i = 0; i < 6; i++) others.push(await createAgent(p, org.accessToken, `Other ${i}`));
    const shared = await createKb(p, org.accessToken, { name: 'Shared' });
    const solo = await createKb(p, org.accessToken, { name: 'Solo' });
    const link = (kb: string, agent: string) => p.http.post(`/api/knowledge/kb/${kb}/agents/${agent}`, {}, { token: org.accessToken });
    await link(shared.id, main.id);
    await link(solo.id, main.id);
    for (const o of others) await link(shared.id, o.id);
    const now = new Date().toISOString();
    await p.infra.db.knex('knowledge_documents').insert(
      [1, 2].map((i) => ({
        id: randomUUID(),
        organization_id: org.orgId,
        knowledge_base_id: solo.id,
        title: `d${i}.txt`,
        mime_type: 'text/plain',
        created_at: now,
        updated_at: now,
      })),
    );
    await p.infra.db.knex('sources').insert({
      id: randomUUID(),
      organization_id: org.orgId,
      knowledge_base_id: solo.id,
      url: 'https://x.example',
      created_at: now,
      updated_at: now,
    });

    const impact = await p.http.get(`/api/knowledge/agents/${main.id}/delete-impact`, { token: org.accessToken });
    expect(impact.status).toBe(200);
    expect(impact.body.truncated).toBe(false);
    const byName = Object.fromEntries(impact.body.knowledgeBases.map((k: any) => [k.name, k]));
    expect(byName.Solo).toEqual({
      id: solo.id,
      name: 'Solo',
      documentCount: 2,
      sourceCount: 1,
      otherAgentCount: 0,
      otherAgents: [],
      canDelete: true,
      cannotDeleteReason: null,
    });
    expect(byName.Shared).toMatchObject({ otherAgentCount: 6, canDelete: false, cannotDeleteReason: 'Shared with 6 other agents' });
    expect(byName.Shared.otherAgents).toHaveLength(5);
    expect(byName.Shared.otherAgents.map((a: any) => a.name)).toEqual(['Other 0', 'Other 1', 'Other 2', 'Other 3', 'Other 4']);
  });
});
