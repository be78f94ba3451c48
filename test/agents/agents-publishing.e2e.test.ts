import { startTestPlatform, type TestPlatform } from '../support/platform';
import { joinOrganization, registerUser, type TestUser } from '../support/users';
import { auditActions, expectError, put, seedKnowledgeBase } from './fixtures';

let p: TestPlatform;
let owner: TestUser;
let member: TestUser;
// Starting a platform (PGlite in WASM, migrations, catalogue) takes long on a loaded machine.
beforeAll(async () => {
  p = await startTestPlatform();
  owner = await registerUser(p.http, { label: 'owner' });
  member = await joinOrganization(p.http, owner, owner.orgId, await registerUser(p.http, { label: 'member' }), 'member');
}, 120_000);
afterAll(() => p?.close());

const as = (u: TestUser) => ({ token: u.accessToken });
const createDraft = async (name: string, knowledgeBaseIds: string[] = [], user = member) => {
  const r = await p.http.post('/api/bots', { name, description: `${name} helps`, knowledgeBaseIds, isDraft: true }, as(user));
  expect(r.status).toBe(201);
  return r.body.bot.id as string;
};
const move = (id: string, action: string, user: TestUser, body: unknown = {}) => p.http.post(`/api/bots/${id}/${action}`, body, as(user));
const NOT_READY = /at least one knowledge base must be linked and have indexed documents/i;

describe('knowledge readiness (spec 3.2)', () => {
  it('refuses a non-draft create without a ready knowledge base', async () => {
    const r = await p.http.post('/api/bots', { name: 'Live now', knowledgeBaseIds: [] }, as(owner));
    expectError(r, 400, 'Knowledge base not ready');
    expect(r.body.message).toMatch(NOT_READY);
    const empty = await seedKnowledgeBase(p, owner.orgId, { pending: 2, failed: 1 });
    expectError(
      await p.http.post('/api/bots', { name: 'Live now', knowledgeBaseIds: [empty] }, as(owner)),
      400,
      'Knowledge base not ready',
    );
    expect((await p.http.get('/api/bots', as(owner))).body.bots.find((b: any) => b.name === 'Live now')).toBeUndefined();
  });

  it('creates a live agent when a linked knowledge base has an indexed document', async () => {
    const ready = await seedKnowledgeBase(p, owner.orgId, { completed: 1 });
    const r = await p.http.post('/api/bots', { name: 'Live', knowledgeBaseIds: [ready] }, as(owner));
    expect(r.status).toBe(201);
    expect(r.body.bot).toMatchObject({ isDraft: false, status: 'published' });
    expectError(await put(p, `/api/bots/${r.body.bot.id}`, { knowledgeBaseIds: [] }, owner.accessToken), 400, 'Knowledge base not ready');
    const unpublish = await put(p, `/api/bots/${r.body.bot.id}`, { isDraft: true, knowledgeBaseIds: [] }, owner.accessToken);
    expect(unpublish.body).toMatchObject({ isDraft: true, status: 'draft', knowledgeBaseIds: [] });
  });

  it('update with isDraft false applies the same rule', async () => {
    const id = await createDraft('Flip');
    expectError(await put(p, `/api/bots/${id}`, { isDraft: false }, member.accessToken), 400, 'Knowledge base not ready');
    const ready = await seedKnowledgeBase(p, owner.orgId, { completed: 3 });
    // a member's isDraft false submits the agent for review (docs/contracts.md "Publishing without review")
    const r = await put(p, `/api/bots/${id}`, { isDraft: false, knowledgeBaseIds: [ready] }, member.accessToken);
    expect(r.body).toMatchObject({ isDraft: true, status: 'pending_review' });
    const o = await put(p, `/api/bots/${id}`, { isDraft: false }, owner.accessToken);
    expect(o.body).toMatchObject({ isDraft: false, status: 'published' });
    expect(o.body.publishedAt).toEqual(expect.any(String));
  });
});

describe('publishing without review (issue 8, item 1)', () => {
  it('the reported bypass: a rejected agent cannot be published by a member through PUT isDraft false', async () => {
    const kb = await seedKnowledgeBase(p, owner.orgId, { completed: 1 });
    const id = await createDraft('Bypass', [kb]);
    await move(id, 'submit-review', member);
    expect((await move(id, 'reject', owner, { feedback: 'Not on brand' })).body.status).toBe('rejected');
    const flip = await put(p, `/api/bots/${id}`, { isDraft: false }, member.accessToken);
    expectError(flip, 409, 'Conflict');
    expect(flip.body.message).toMatch(/submit-review/);
    // isDraft true on a rejected agent saves other fields and stays rejected
    const edit = await put(p, `/api/bots/${id}`, { isDraft: true, description: 'on brand now' }, member.accessToken);
    expect(edit.body).toMatchObject({ status: 'rejected', description: 'on brand now' });
    expectError(await move(id, 'publish', owner), 409, 'Conflict');
    expectError(await p.http.post(`/api/bots/${id}/distribution/publish`, {}, as(member)), 409, 'Conflict');
    expect((await p.http.get(`/api/bots/${id}/draft-status`, as(member))).body.status).toBe('rejected');
    // the only way out is review again
    expect((await move(id, 'submit-review', member)).body.status).toBe('pending_review');
  });

  it('a member creating with isDraft false (the default) submits for review; nothing reaches the marketplace', async () => {
    const kb = await seedKnowledgeBase(p, owner.orgId, { completed: 1 });
    const r = await p.http.post('/api/bots', { name: 'Member default', knowledgeBaseIds: [kb] }, as(member));
    expect(r.status).toBe(201);
    expect(r.body.bot).toMatchObject({ isDraft: true, status: 'pending_review' });
    expectError(await p.http.post(`/api/bots/${r.body.bot.id}/distribution/publish`, {}, as(member)), 409, 'Conflict');
    const market = await p.http.get('/marketplace/agents');
    expect(JSON.stringify(market.body)).not.toContain(r.body.bot.id);
  });

  it('owners and admins go live at once, and each such move is audited', async () => {
    const kb = await seedKnowledgeBase(p, owner.orgId, { completed: 1 });
    const r = await p.http.post('/api/bots', { name: 'Owner live', knowledgeBaseIds: [kb] }, as(owner));
    expect(r.body.bot).toMatchObject({ isDraft: false, status: 'published' });
    expect(await auditActions(p, owner.orgId, r.body.bot.id)).toContain('agent.publish_without_review');
    const draft = await createDraft('Owner direct', [kb]);
    expect((await move(draft, 'publish', owner)).body.status).toBe('published');
    expect(await auditActions(p, owner.orgId, draft)).toContain('agent.publish_without_review');
    // the reviewed path is not a bypass: no such entry
    const reviewed = await createDraft('Reviewed', [kb]);
    await move(reviewed, 'submit-review', member);
    await move(reviewed, 'approve', owner);
    await move(reviewed, 'publish', member);
    expect(await auditActions(p, owner.orgId, reviewed)).not.toContain('agent.publish_without_review');
  });
});

describe('review workflow', () => {
  it('submit -> approve -> publish -> distribute -> marketplace', async () => {
    const kb = await seedKnowledgeBase(p, owner.orgId, { completed: 1, pending: 1 });
    const id = await createDraft('Support Bot', [kb]);
    const status = await p.http.get(`/api/bots/${id}/draft-status`, as(member));
    expect(status.body).toMatchObject({
      status: 'draft',
      isDraft: true,
      isPendingReview: false,
      knowledgeReady: true,
      availableActions: ['submit-review'],
    });

    expectError(await move(id, 'publish', member), 409, 'Conflict');
    expectError(await move(id, 'approve', owner), 409, 'Conflict');
    const submitted = await move(id, 'submit-review', member);
    expect(submitted.status).toBe(200);
    expect(submitted.body).toMatchObject({ success: true, status: 'pending_review', bot: { status: 'pending_review', isDraft: true } });
    expectError(await move(id, 'submit-review', member), 409, 'Conflict');
    expectError(await move(id, 'approve', member), 403, 'Forbidden');
    expect((await p.http.get(`/api/bots/${id}/draft-status`, as(owner))).body.availableActions).toEqual(['approve', 'reject', 'publish']);

    const approved = await move(id, 'approve', owner);
    expect(approved.body).toMatchObject({ status: 'approved', bot: { isDraft: true, reviewFeedback: null } });
    expectError(await p.http.post(`/api/bots/${id}/distribution/publish`, {}, as(member)), 409, 'Conflict');
    const published = await move(id, 'publish', member);
    expect(published.body).toMatchObject({ status: 'published', bot: { isDraft: false, status: 'published' } });

    const dist = await p.http.post(`/api/bots/${id}/distribution/publish`, {}, as(member));
    expect(dist.status).toBe(200);
    expect(dist.body).toEqual({
      slug: 'support-bot',
      url: expect.stringMatching(/\/api\/public\/agents\/support-bot$/),
      distribution: { require_org_membership: false, allowed_group_ids: null },
    });
    expect((await p.http.get(`/api/bots/${id}`, as(member))).body.slug).toBe('support-bot');
    expect((await p.http.get(`/api/bots/${id}/delete-impact`, as(member))).body.publicLink).toEqual({ slug: 'support-bot' });

    const market = await p.http.get('/marketplace/agents');
    expect(market.status).toBe(200);
    const listed = market.body.agents.find((a: any) => a.slug === 'support-bot');
    expect(listed).toMatchObject({ name: 'Support Bot', description: 'Support Bot helps', model: 'local/extractive' });
    expect(listed).not.toHaveProperty('organizationId');
    expect(listed).not.toHaveProperty('systemPrompt');
    expect(market.body.pagination).toMatchObject({ limit: 50, offset: 0 });
  });

  it('reject needs feedback; a rejected agent goes back to review only', async () => {
    const id = await createDraft('Rejectable');
    await move(id, 'submit-review', member);
    expectError(await move(id, 'reject', owner), 400, 'Validation Error');
    expectError(await move(id, 'reject', owner, { feedback: '' }), 400, 'Validation Error');
    expectError(await move(id, 'reject', member, { feedback: 'no' }), 403, 'Forbidden');
    const rejected = await move(id, 'reject', owner, { feedback: 'Add a knowledge base' });
    expect(rejected.body).toMatchObject({ status: 'rejected', bot: { reviewFeedback: 'Add a knowledge base' } });
    expect((await p.http.get(`/api/bots/${id}/draft-status`, as(member))).body).toMatchObject({
      status: 'rejected',
      reviewFeedback: 'Add a knowledge base',
    });
    expect((await move(id, 'submit-review', member)).body.status).toBe('pending_review');
    expectError(await move(id, 'approve', owner), 400, 'Knowledge base not ready');
    expect((await move(id, 'reject', owner, { feedback: 'still empty' })).body.status).toBe('rejected');
    // a rejected agent leaves that state only through submit-review
    expect((await put(p, `/api/bots/${id}`, { isDraft: true }, member.accessToken)).body.status).toBe('rejected');
  });

  it('owners may publish a draft directly; publish still needs a ready knowledge base', async () => {
    const id = await createDraft('Direct');
    expectError(await move(id, 'publish', owner), 400, 'Knowledge base not ready');
    const kb = await seedKnowledgeBase(p, owner.orgId, { completed: 1 });
    await put(p, `/api/bots/${id}`, { knowledgeBaseIds: [kb] }, member.accessToken);
    expect((await move(id, 'publish', owner)).body.status).toBe('published');
    expectError(await move(id, 'publish', owner), 409, 'Conflict');
  });
});

describe('distribution', () => {
  const publishedAgent = async (name: string) => {
    const kb = await seedKnowledgeBase(p, owner.orgId, { completed: 1 });
    const r = await p.http.post('/api/bots', { name, knowledgeBaseIds: [kb] }, as(owner));
    return r.body.bot.id as string;
  };

  it('takes a chosen slug, refuses a taken one (409) and a malformed one (400)', async () => {
    const a = await publishedAgent('Alpha');
    const b = await publishedAgent('Beta');
    expect((await p.http.post(`/api/bots/${a}/distribution/publish`, { slug: 'alpha-help' }, as(owner))).body.slug).toBe('alpha-help');
    expectError(await p.http.post(`/api/bots/${b}/distribution/publish`, { slug: 'alpha-help' }, as(owner)), 409, 'Conflict');
    expectError(await p.http.post(`/api/bots/${b}/distribution/publish`, { slug: 'Not A Slug' }, as(owner)), 400, 'Validation Error');
    // Keeps its slug when called again without one.
    expect((await p.http.post(`/api/bots/${a}/distribution/publish`, {}, as(owner))).body.slug).toBe('alpha-help');
  });

  it('generates distinct slugs from equal names', async () => {
    const a = await publishedAgent('Same Name');
    const b = await publishedAgent('Same Name');
    const sa = (await p.http.post(`/api/bots/${a}/distribution/publish`, {}, as(owner))).body.slug;
    const sb = (await p.http.post(`/api/bots/${b}/distribution/publish`, {}, as(owner))).body.slug;
    expect(sa).toBe('same-name');
    expect(sb).toBe('same-name-2');
  });

  it('keeps restricted and unpublished agents out of the marketplace', async () => {
    const members = await publishedAgent('Members only');
    const groups = await publishedAgent('Group only');
    const pulled = await publishedAgent('Pulled back');
    await p.http.post(`/api/bots/${members}/distribution/publish`, { slug: 'members-only', require_org_membership: true }, as(owner));
    const g = await p.http.post(
      `/api/bots/${groups}/distribution/publish`,
      { slug: 'group-only', allowed_group_ids: ['6f1c1b8e-8d5e-4a55-9a57-1d6a0b3b2c10'] },
      as(owner),
    );
    expect(g.body.distribution).toEqual({ require_org_membership: false, allowed_group_ids: ['6f1c1b8e-8d5e-4a55-9a57-1d6a0b3b2c10'] });
    await p.http.post(`/api/bots/${pulled}/distribution/publish`, { slug: 'pulled-back' }, as(owner));
    await put(p, `/api/bots/${pulled}`, { isDraft: true }, owner.accessToken);
    const slugs = (await p.http.get('/marketplace/agents?limit=200')).body.agents.map((a: any) => a.slug);
    expect(slugs).toContain('alpha-help');
    expect(slugs).not.toContain('members-only');
    expect(slugs).not.toContain('group-only');
    expect(slugs).not.toContain('pulled-back');
  });
});
