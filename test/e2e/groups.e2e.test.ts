/**
 * User groups (docs/contracts.md "Groups", issue 18 item 5) through the gateway: the group endpoints, membership checks
 * on the public lane (a signed-in caller outside the groups gets 404, anonymous visitors too), the marketplace
 * exclusion, and group deletion removing the group from every agent's allowed_group_ids.
 */
import { randomUUID } from 'node:crypto';

import { seedDocument } from '../chat/seed-knowledge';
import { createKb } from '../knowledge/knowledge-support';
import { base, distributedAgent } from '../public-chat/public-support';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { joinOrganization, registerUser, type TestUser } from '../support/users';

let p: TestPlatform;
let owner: TestUser;
let admin: TestUser;
let member: TestUser;
let grouped: TestUser;
let outsider: TestUser;
let kbId: string;

beforeAll(async () => {
  p = await startTestPlatform();
  owner = await registerUser(p.http, { label: 'groups-owner' });
  admin = await joinOrganization(p.http, owner, owner.orgId, await registerUser(p.http, { label: 'groups-admin' }), 'admin');
  member = await joinOrganization(p.http, owner, owner.orgId, await registerUser(p.http, { label: 'groups-member' }), 'member');
  grouped = await joinOrganization(p.http, owner, owner.orgId, await registerUser(p.http, { label: 'groups-viewer' }), 'viewer');
  outsider = await registerUser(p.http, { label: 'groups-outsider' });
  kbId = (await createKb(p, owner.accessToken, { name: 'Policies' })).id;
  await seedDocument(p, owner.orgId, kbId, 'refunds.txt', ['Refunds are paid within fourteen days of the request.']);
});
afterAll(() => p?.close());

const as = (user: TestUser) => ({ token: user.accessToken });
const groups = (orgId = owner.orgId) => `/api/organizations/${orgId}/groups`;
const membersOf = (groupId: string, userId = '') => `${groups()}/${groupId}/members${userId ? `/${userId}` : ''}`;
const put = (path: string, user = owner) => p.http.request('PUT', path, as(user));

async function newGroup(name: string, user = owner) {
  const r = await p.http.post(groups(), { name }, as(user));
  expect(r.status).toBe(201);
  return r.body.group as { id: string; name: string; memberCount: number; createdAt: string };
}

describe('group endpoints', () => {
  it('create, list with member counts, add and remove members, delete', async () => {
    const created = await p.http.post(groups(), { name: 'Support team' }, as(admin));
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      group: { id: expect.any(String), name: 'Support team', memberCount: 0, createdAt: expect.any(String) },
    });
    const id = created.body.group.id;

    expect((await put(membersOf(id, member.id), admin)).status).toBe(204);
    expect((await put(membersOf(id, member.id), admin)).status).toBe(204); // idempotent
    expect((await put(membersOf(id, grouped.id))).status).toBe(204);
    const listed = await p.http.get(groups(), as(member));
    expect(listed.status).toBe(200);
    expect(listed.body.groups.find((g: any) => g.id === id)).toEqual({ ...created.body.group, memberCount: 2 });
    const members = await p.http.get(membersOf(id), as(member));
    expect(members.body.members.map((m: any) => m.userId)).toEqual([member.id, grouped.id]);

    expect((await p.http.delete(membersOf(id, member.id), as(owner))).status).toBe(204);
    expect((await p.http.delete(membersOf(id, member.id), as(owner))).status).toBe(204); // idempotent
    expect((await p.http.get(groups(), as(owner))).body.groups.find((g: any) => g.id === id).memberCount).toBe(1);

    expect((await p.http.delete(`${groups()}/${id}`, as(owner))).status).toBe(204);
    expect((await p.http.get(groups(), as(owner))).body.groups.some((g: any) => g.id === id)).toBe(false);
    expect((await p.http.delete(`${groups()}/${id}`, as(owner))).status).toBe(404);
  });

  it('validates names: required, unique in the organization regardless of case (409)', async () => {
    await newGroup('Sales');
    const dup = await p.http.post(groups(), { name: 'sales' }, as(owner));
    expect({ status: dup.status, error: dup.body.error }).toEqual({ status: 409, error: 'Conflict' });
    const empty = await p.http.post(groups(), { name: '   ' }, as(owner));
    expect({ status: empty.status, error: empty.body.error }).toEqual({ status: 400, error: 'Validation Error' });
    expect((await p.http.post(groups(), {}, as(owner))).status).toBe(400);
    // The same name in another organization is fine.
    expect((await p.http.post(groups(outsider.orgId), { name: 'Sales' }, as(outsider))).status).toBe(201);
  });

  it('needs owner or admin to change groups (403), membership of the organization to see them (404)', async () => {
    const g = await newGroup(`Managers ${randomUUID().slice(0, 4)}`);
    expect((await p.http.post(groups(), { name: 'Nope' }, as(member))).status).toBe(403);
    expect((await put(membersOf(g.id, member.id), member)).status).toBe(403);
    expect((await p.http.delete(membersOf(g.id, member.id), as(grouped))).status).toBe(403);
    expect((await p.http.delete(`${groups()}/${g.id}`, as(member))).status).toBe(403);
    for (const r of [
      await p.http.get(groups(), as(outsider)),
      await p.http.post(groups(), { name: 'Intruders' }, as(outsider)),
      await put(membersOf(g.id, outsider.id), outsider),
      await p.http.delete(`${groups()}/${g.id}`, as(outsider)),
    ]) {
      expect({ status: r.status, error: r.body?.error }).toEqual({ status: 404, error: 'Not Found' });
    }
    // Only members of the organization can join; another organization's group is not found.
    expect((await put(membersOf(g.id, outsider.id))).status).toBe(404);
    expect((await put(membersOf(randomUUID(), member.id))).status).toBe(404);
    const foreign = (await p.http.post(groups(outsider.orgId), { name: 'Theirs' }, as(outsider))).body.group;
    expect((await put(`${groups()}/${foreign.id}/members/${member.id}`)).status).toBe(404);
    expect((await p.http.get(groups('not-a-uuid'), as(owner))).status).toBe(400);
  });
});

describe('group-restricted agents on the public lane', () => {
  it('serve only signed-in members of an allowed group; everyone else gets 404; the marketplace omits them', async () => {
    const g = await newGroup(`Insiders ${randomUUID().slice(0, 4)}`);
    expect((await put(membersOf(g.id, grouped.id))).status).toBe(204);
    const agent = await distributedAgent(p, owner, kbId, {}, { allowed_group_ids: [g.id] });

    const served = await p.http.get(base(agent.slug), as(grouped));
    expect(served.status).toBe(200);
    expect(served.body).toMatchObject({ id: agent.id, restricted: true });
    const visitor = randomUUID();
    const started = await p.http.post(`${base(agent.slug)}/conversations`, { anonymousId: visitor }, as(grouped));
    expect(started.status).toBe(200);
    const conversationId = started.body.data.conversationId;
    const chat = await p.http.post(`${base(agent.slug)}/chat`, { message: 'refunds?', conversationId, anonymousId: visitor }, as(grouped));
    expect(chat.status).toBe(200);

    // Anonymous, outsiders, and members of the organization outside the group (even its owner): 404.
    for (const token of [undefined, outsider.accessToken, member.accessToken, owner.accessToken]) {
      const opts = token ? { token } : {};
      expect((await p.http.get(base(agent.slug), opts)).status).toBe(404);
      expect((await p.http.post(`${base(agent.slug)}/conversations`, { anonymousId: randomUUID() }, opts)).status).toBe(404);
      expect((await p.http.post(`${base(agent.slug)}/chat`, { message: 'x', conversationId, anonymousId: visitor }, opts)).status).toBe(
        404,
      );
    }
    const market = await p.http.get('/marketplace/agents?limit=200');
    expect(market.status).toBe(200);
    expect(market.body.agents.map((a: any) => a.slug)).not.toContain(agent.slug);

    // Leaving the group, or the organization, ends access.
    expect((await p.http.delete(membersOf(g.id, grouped.id), as(owner))).status).toBe(204);
    expect((await p.http.get(base(agent.slug), as(grouped))).status).toBe(404);
    expect((await put(membersOf(g.id, member.id))).status).toBe(204);
    expect((await p.http.get(base(agent.slug), as(member))).status).toBe(200);
    const leaver = await joinOrganization(p.http, owner, owner.orgId, await registerUser(p.http, { label: 'groups-leaver' }), 'member');
    expect((await put(membersOf(g.id, leaver.id))).status).toBe(204);
    expect((await p.http.get(base(agent.slug), as(leaver))).status).toBe(200);
    expect((await p.http.delete(`/api/organizations/${owner.orgId}/members/${leaver.id}`, as(owner))).status).toBe(204);
    expect((await p.http.get(base(agent.slug), as(leaver))).status).toBe(404);
    expect((await p.http.get(membersOf(g.id), as(owner))).body.members.map((m: any) => m.userId)).toEqual([member.id]);
  });

  it("deleting a group removes it from every agent's allowed_group_ids and never opens an agent to everyone", async () => {
    const doomed = await newGroup(`Doomed ${randomUUID().slice(0, 4)}`);
    const kept = await newGroup(`Kept ${randomUUID().slice(0, 4)}`);
    expect((await put(membersOf(doomed.id, grouped.id))).status).toBe(204);
    expect((await put(membersOf(kept.id, member.id))).status).toBe(204);
    const both = await distributedAgent(p, owner, kbId, {}, { allowed_group_ids: [doomed.id, kept.id] });
    const only = await distributedAgent(p, owner, kbId, {}, { allowed_group_ids: [doomed.id] });
    expect((await p.http.get(base(both.slug), as(grouped))).status).toBe(200);
    expect((await p.http.get(base(only.slug), as(grouped))).status).toBe(200);

    expect((await p.http.delete(`${groups()}/${doomed.id}`, as(admin))).status).toBe(204);

    const bothNow = (await p.http.get(`/api/bots/${both.id}`, as(owner))).body;
    expect(bothNow.distribution).toEqual({ require_org_membership: false, allowed_group_ids: [kept.id] });
    const onlyNow = (await p.http.get(`/api/bots/${only.id}`, as(owner))).body;
    expect(onlyNow.distribution.allowed_group_ids).toEqual([]);
    expect(onlyNow.distribution.require_org_membership).toBe(true);

    expect((await p.http.get(base(both.slug), as(grouped))).status).toBe(404);
    expect((await p.http.get(base(both.slug), as(member))).status).toBe(200);
    // The agent only the deleted group could open stays closed to the public: members of the organization only.
    expect((await p.http.get(base(only.slug))).status).toBe(404);
    expect((await p.http.get(base(only.slug), as(outsider))).status).toBe(404);
    expect((await p.http.get(base(only.slug), as(grouped))).status).toBe(200);
    const market = await p.http.get('/marketplace/agents?limit=200');
    expect(market.body.agents.map((a: any) => a.slug)).not.toEqual(expect.arrayContaining([only.slug]));
  });
});
