import { randomUUID } from 'node:crypto';

import { memorySessionStore, PlatformClient, unwrap } from '../../sdk';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { joinOrganization, registerUser, type TestUser } from '../support/users';
import { auditActions, expectError, put, seedKnowledgeBase } from './fixtures';

let p: TestPlatform;
let owner: TestUser;
// Starting a platform (PGlite in WASM, migrations, catalogue) takes long on a loaded machine.
beforeAll(async () => {
  // An OpenAI key makes openai/* models available (agents may only use served models); nothing here calls it.
  p = await startTestPlatform({
    PLAN_AGENTS: '6',
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
    EMBEDDINGS_PROVIDER: 'local',
    VISION_PROVIDER: 'none',
    TRANSCRIPTION_PROVIDER: 'none',
  });
  owner = await registerUser(p.http, { label: 'owner' });
}, 120_000);
afterAll(() => p?.close());

const create = (body: Record<string, unknown>, user = owner) =>
  p.http.post('/api/bots', { knowledgeBaseIds: [], isDraft: true, ...body }, { token: user.accessToken });

describe('agents: create, read, update, versions, revert', () => {
  it('creates a draft with the defaults of spec 2.3 and version 1', async () => {
    const r = await create({ name: 'Helper' });
    expect(r.status).toBe(201);
    expect(r.body.success).toBe(true);
    expect(r.body.bot).toMatchObject({
      name: 'Helper',
      description: '',
      model: 'local/extractive',
      organizationId: owner.orgId,
      isDraft: true,
      status: 'draft',
      streamingEnabled: true,
      fileUploadsEnabled: false,
      voiceEnabled: false,
      slug: null,
      knowledgeBaseIds: [],
    });
    const versions = await p.http.get(`/api/bots/${r.body.bot.id}/versions`, { token: owner.accessToken });
    expect(versions.body.total).toBe(1);
    expect(versions.body.versions[0]).toMatchObject({ version: 1, createdBy: owner.id, changes: { name: 'Helper' } });
  });

  it('enforces the field limits of spec 8 with 400 Validation Error', async () => {
    expectError(await create({ name: '' }), 400, 'Validation Error');
    expectError(await create({ name: 'x'.repeat(256) }), 400, 'Validation Error');
    expectError(await create({ name: 'ok', description: 'd'.repeat(2001) }), 400, 'Validation Error');
    expectError(await create({ name: 'ok', systemPrompt: 's'.repeat(50_001) }), 400, 'Validation Error');
    expectError(await create({ name: 'ok', voiceSettings: { voice: 'alloy', speed: 2.5 } }), 400, 'Validation Error');
    expectError(await create({ name: 'ok', multimodalConfig: { enabled: true, supportedTypes: ['smell'] } }), 400, 'Validation Error');
    expectError(await create({ name: 'ok', tools: [{ isEnabled: true }] }), 400, 'Validation Error');
    expectError(await p.http.post('/api/bots', { name: 'no kb list' }, { token: owner.accessToken }), 400, 'Validation Error');
  });

  it('gets an agent with knowledgeBases, modelInputModalities and slug', async () => {
    const kb = await seedKnowledgeBase(p, owner.orgId, { completed: 2, failed: 1, pending: 1 }, 'Manuals');
    const { body } = await create({ name: 'Vision', model: 'openai/gpt-4o', knowledgeBaseIds: [kb] });
    const r = await p.http.get(`/api/bots/${body.bot.id}`, { token: owner.accessToken });
    expect(r.status).toBe(200);
    expect(r.body.slug).toBeNull();
    expect(r.body.modelInputModalities).toEqual(expect.arrayContaining(['text', 'image']));
    expect(r.body.knowledgeBases).toEqual([
      {
        id: kb,
        name: 'Manuals',
        description: 'About Manuals',
        documentCount: 4,
        indexedDocumentCount: 2,
        failedDocumentCount: 1,
        pendingDocumentCount: 1,
      },
    ]);
    const status = await p.http.get(`/api/bots/${body.bot.id}/indexing-status`, { token: owner.accessToken });
    expect(status.body).toEqual({
      linkedKbCount: 1,
      totalDocuments: 4,
      indexedDocuments: 2,
      failedDocuments: 1,
      pendingDocuments: 1,
      ready: true,
    });
  });

  it('updates only supplied fields, versions every update and reverts as a new version', async () => {
    const kb = await seedKnowledgeBase(p, owner.orgId);
    const { body } = await create({ name: 'Tutor', description: 'first', systemPrompt: 'Be brief', knowledgeBaseIds: [kb] });
    const id = body.bot.id;
    const u1 = await put(p, `/api/bots/${id}`, { description: 'second' }, owner.accessToken);
    expect(u1.status).toBe(200);
    expect(u1.body).toMatchObject({ name: 'Tutor', description: 'second', systemPrompt: 'Be brief', knowledgeBaseIds: [kb] });
    expect(u1.body).toMatchObject({ success: true, bot: { id, name: 'Tutor', description: 'second' } });
    const u2 = await put(p, `/api/bots/${id}`, { name: 'Tutor 2', knowledgeBaseIds: [] }, owner.accessToken);
    expect(u2.body).toMatchObject({ name: 'Tutor 2', description: 'second', knowledgeBaseIds: [] });

    const versions = await p.http.get(`/api/bots/${id}/versions`, { token: owner.accessToken });
    expect(versions.body.total).toBe(3);
    expect(versions.body.versions.map((v: any) => v.version)).toEqual([3, 2, 1]);
    expect(versions.body.versions[0]).toMatchObject({ changes: { name: 'Tutor 2', knowledgeBaseIds: [] }, createdBy: owner.id });
    expect(versions.body.versions[0].notes).toMatch(/name/);

    const revert = await p.http.post(`/api/bots/${id}/versions/1/revert`, {}, { token: owner.accessToken });
    expect(revert.status).toBe(200);
    expect(revert.body).toMatchObject({ success: true, bot: { name: 'Tutor', description: 'first', knowledgeBaseIds: [kb] } });
    expect(revert.body.message).toMatch(/version 1/);
    const after = await p.http.get(`/api/bots/${id}/versions`, { token: owner.accessToken });
    expect(after.body.versions.map((v: any) => v.version)).toEqual([4, 3, 2, 1]);
    expect(after.body.versions[0].notes).toBe('Reverted to version 1');
    expect(after.body.versions[1].changes.name).toBe('Tutor 2');
    expect((await p.http.post(`/api/bots/${id}/versions/99/revert`, {}, { token: owner.accessToken })).status).toBe(404);
  });

  it('lists agents with pagination (default 50)', async () => {
    const r = await p.http.get('/api/bots?limit=2', { token: owner.accessToken });
    expect(r.status).toBe(200);
    expect(r.body.bots).toHaveLength(2);
    expect(r.body.pagination).toMatchObject({ limit: 2, offset: 0 });
    const all = await p.http.get('/api/bots', { token: owner.accessToken });
    expect(all.body.pagination.limit).toBe(50);
    expect(all.body.pagination.total).toBe(all.body.bots.length);
  });
});

describe('models an agent may use (through the SDK)', () => {
  it('refuses on create and update a model no configured provider serves; /api/models marks it not available', async () => {
    const c = new PlatformClient({ baseUrl: p.gatewayUrl, sessions: memorySessionStore() });
    await c.register({
      email: `models-${randomUUID().slice(0, 8)}@example.com`,
      password: `pw-${randomUUID()}`,
      displayName: 'M',
      organizationName: 'M',
    });

    // No Cohere key here: cohere/* is in the catalogue and active, but nothing serves it.
    const refused = await c
      .createAgent({ name: 'Cohere agent', model: 'cohere/command-r', knowledgeBaseIds: [], isDraft: true })
      .catch((e) => e);
    expect(refused).toMatchObject({
      status: 400,
      error: 'Validation Error',
      code: 'MODEL_NOT_AVAILABLE',
      details: { field: 'model', model: 'cohere/command-r' },
    });
    expect(refused.message).toContain('cohere/command-r');
    expect((await c.listAgents()).pagination.total).toBe(0);

    const agent = await c.createAgent({ name: 'OpenAI agent', model: 'openai/gpt-4o', knowledgeBaseIds: [], isDraft: true });
    await expect(c.updateAgent(agent.id, { model: 'cohere/command-r' })).rejects.toMatchObject({
      status: 400,
      code: 'MODEL_NOT_AVAILABLE',
    });
    expect((await c.getAgent(agent.id)).model).toBe('openai/gpt-4o');
    expect((await c.updateAgent(agent.id, { model: 'local/extractive', name: 'Offline agent' })).model).toBe('local/extractive');

    const { models } = await unwrap(c.api.GET('/api/models'));
    const byId = new Map(models.map((m) => [m.id, m]));
    expect(byId.get('cohere/command-r')).toMatchObject({ isActive: true, available: false });
    expect(byId.get('openai/gpt-4o')).toMatchObject({ isActive: true, available: true });
    expect(byId.get('local/extractive')).toMatchObject({ available: true });
    const { validation } = await unwrap(c.api.GET('/api/models/{id}/validation', { params: { path: { id: 'cohere/command-r' } } }));
    expect(validation).toMatchObject({ valid: false, available: false, issues: ['No configured provider serves this model'] });
  });
});

describe('invalid_knowledge_base_ids', () => {
  it('refuses missing, malformed and foreign knowledge bases and saves nothing', async () => {
    const stranger = await registerUser(p.http, { label: 'stranger' });
    const foreign = await seedKnowledgeBase(p, stranger.orgId, { completed: 1 });
    const before = (await p.http.get('/api/bots', { token: owner.accessToken })).body.pagination.total;
    for (const ids of [[randomUUID()], ['not-a-uuid'], [foreign]]) {
      const r = await create({ name: 'Never', knowledgeBaseIds: ids });
      expectError(r, 400, 'invalid_knowledge_base_ids');
    }
    expect((await p.http.get('/api/bots', { token: owner.accessToken })).body.pagination.total).toBe(before);

    const kb = await seedKnowledgeBase(p, owner.orgId);
    const { body } = await create({ name: 'Keep', description: 'kept', knowledgeBaseIds: [kb] });
    const r = await put(p, `/api/bots/${body.bot.id}`, { description: 'changed', knowledgeBaseIds: [kb, foreign] }, owner.accessToken);
    expectError(r, 400, 'invalid_knowledge_base_ids');
    const got = await p.http.get(`/api/bots/${body.bot.id}`, { token: owner.accessToken });
    expect(got.body).toMatchObject({ description: 'kept', knowledgeBaseIds: [kb] });
    expect((await p.http.get(`/api/bots/${body.bot.id}/versions`, { token: owner.accessToken })).body.total).toBe(1);
  });
});

describe('organizations and roles', () => {
  it("answers 404 for another organization's agent on every route", async () => {
    const other = await registerUser(p.http, { label: 'other' });
    const { body } = await create({ name: 'Private' });
    const id = body.bot.id;
    const t = { token: other.accessToken };
    for (const path of [
      '',
      '/usage',
      '/versions',
      '/draft-status',
      '/indexing-status',
      '/delete-impact',
      '/prompt-sections',
      '/prompt-config-versions',
    ]) {
      expect([path, (await p.http.get(`/api/bots/${id}${path}`, t)).status]).toEqual([path, 404]);
    }
    expect((await put(p, `/api/bots/${id}`, { name: 'x' }, other.accessToken)).status).toBe(404);
    expect((await p.http.delete(`/api/bots/${id}`, t)).status).toBe(404);
    expect((await p.http.post(`/api/bots/${id}/submit-review`, {}, t)).status).toBe(404);
    expect((await p.http.get(`/api/bots/${randomUUID()}`, { token: owner.accessToken })).status).toBe(404);
    expect((await p.http.get('/api/bots/not-a-uuid', { token: owner.accessToken })).status).toBe(404);
  });

  it('viewers cannot create or delete; an explicit delete grant lets a viewer delete', async () => {
    const viewer = await joinOrganization(p.http, owner, owner.orgId, await registerUser(p.http, { label: 'viewer' }), 'viewer');
    expectError(await create({ name: 'Nope' }, viewer), 403, 'Forbidden');
    const { body } = await create({ name: 'Doomed' });
    const id = body.bot.id;
    expect((await p.http.get(`/api/bots/${id}`, { token: viewer.accessToken })).status).toBe(200);
    expectError(await p.http.delete(`/api/bots/${id}`, { token: viewer.accessToken }), 403, 'Forbidden');
    expect((await p.http.get(`/api/bots/${id}/delete-impact`, { token: viewer.accessToken })).status).toBe(403);
    expect((await put(p, `/api/bots/${id}/grants/${viewer.id}`, { permissions: ['delete'] }, viewer.accessToken)).status).toBe(403);

    const grant = await put(p, `/api/bots/${id}/grants/${viewer.id}`, { permissions: ['delete'] }, owner.accessToken);
    expect(grant.status).toBe(200);
    expect(grant.body.grant).toEqual({ agentId: id, userId: viewer.id, permissions: ['delete'] });
    expect((await p.http.get(`/api/bots/${id}/grants`, { token: owner.accessToken })).body.grants).toHaveLength(1);
    expect((await p.http.get(`/api/bots/${id}/delete-impact`, { token: viewer.accessToken })).status).toBe(200);
    expect((await p.http.delete(`/api/bots/${id}`, { token: viewer.accessToken })).status).toBe(204);
    expect(await auditActions(p, owner.orgId, id)).toEqual(['agent.create', 'agent.delete']);
  });

  it('members hold delete on every agent of the organization', async () => {
    const member = await joinOrganization(p.http, owner, owner.orgId, await registerUser(p.http, { label: 'member' }), 'member');
    const { body } = await create({ name: 'Owned by the owner' });
    expect((await p.http.delete(`/api/bots/${body.bot.id}`, { token: member.accessToken })).status).toBe(204);
  });
});

describe('delete, impact, usage and plan limits', () => {
  it('soft-deletes once (204), then answers 404, keeping conversations', async () => {
    const { body } = await create({ name: 'Short lived' });
    const id = body.bot.id;
    const db = p.infra.db.knex;
    const now = new Date().toISOString();
    const convId = randomUUID();
    await db('conversations').insert({
      id: convId,
      organization_id: owner.orgId,
      agent_id: id,
      user_id: owner.id,
      created_at: now,
      updated_at: now,
    });
    await db('messages').insert([
      {
        id: randomUUID(),
        conversation_id: convId,
        organization_id: owner.orgId,
        role: 'user',
        content: 'hi',
        prompt_tokens: 10,
        completion_tokens: 0,
        cost_usd: 0,
        created_at: now,
      },
      {
        id: randomUUID(),
        conversation_id: convId,
        organization_id: owner.orgId,
        role: 'assistant',
        content: 'hello',
        prompt_tokens: 5,
        completion_tokens: 20,
        cost_usd: 0.0125,
        created_at: now,
      },
    ]);
    const usage = await p.http.get(`/api/bots/${id}/usage`, { token: owner.accessToken });
    expect(usage.body).toEqual({ conversationCount: 1, messageCount: 2, totalTokens: 35, estimatedCost: 0.0125 });
    const impact = await p.http.get(`/api/bots/${id}/delete-impact`, { token: owner.accessToken });
    expect(impact.body).toEqual({
      agent: { id, name: 'Short lived', status: 'draft', organizationId: owner.orgId },
      publicLink: null,
      channels: [],
      conversationCount: 1,
    });

    expect((await p.http.delete(`/api/bots/${id}`, { token: owner.accessToken })).status).toBe(204);
    expect((await p.http.delete(`/api/bots/${id}`, { token: owner.accessToken })).status).toBe(404);
    expect((await p.http.get(`/api/bots/${id}`, { token: owner.accessToken })).status).toBe(404);
    expect((await p.http.get(`/api/bots/${id}/delete-impact`, { token: owner.accessToken })).status).toBe(404);
    expect(await db('conversations').where({ id: convId }).first()).toBeTruthy();
    const audit = await db('audit_log').where({ resource_id: id, action: 'agent.delete' }).first();
    expect(audit).toMatchObject({ organization_id: owner.orgId, actor_id: owner.id, resource_type: 'agent' });
  });

  it('answers 403 plan_limit past the plan agent count (deleted agents do not count)', async () => {
    const solo = await registerUser(p.http, { label: 'solo' });
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await create({ name: `A${i}` }, solo)).body.bot.id);
    expectError(await create({ name: 'one too many' }, solo), 403, 'plan_limit');
    await p.http.delete(`/api/bots/${ids[0]}`, { token: solo.accessToken });
    expect((await create({ name: 'fits again' }, solo)).status).toBe(201);
  });
});
