import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { registerUser, type TestUser, uniqueEmail } from '../support/users';

let p: TestPlatform;
let owner: TestUser;
beforeAll(async () => {
  p = await startTestPlatform();
  owner = await registerUser(p.http, { label: 'audited' });
}, BOOT_TIMEOUT_MS);
afterAll(() => p?.close(), BOOT_TIMEOUT_MS);

const auditOf = async (query: string, token = owner.accessToken) => (await p.http.get(`/api/audit-logs${query}`, { token })).body;

describe('audit log', () => {
  it('records the changes an administrator looks for, filterable by action family, actor, resource and time', async () => {
    const before = new Date(Date.now() - 1000).toISOString();
    const agent = await p.http.post(
      '/api/bots',
      { name: 'Audited agent', knowledgeBaseIds: [], isDraft: true },
      { token: owner.accessToken },
    );
    expect(agent.status).toBe(201);
    const agentId = agent.body.bot?.id ?? agent.body.id;
    expect(
      (await p.http.request('PUT', `/api/bots/${agentId}`, { token: owner.accessToken, body: { description: 'changed' } })).status,
    ).toBe(200);
    const key = await p.http.post('/api/api-keys', { name: 'ci', scopes: ['agents:write'] }, { token: owner.accessToken });
    expect((await p.http.delete(`/api/api-keys/${key.body.apiKey.id}`, { token: owner.accessToken })).status).toBe(204);
    const invitation = await p.http.post(
      `/api/organizations/${owner.orgId}/invitations`,
      { email: uniqueEmail('audit-invitee'), role: 'member' },
      { token: owner.accessToken },
    );
    expect(
      (await p.http.delete(`/api/organizations/${owner.orgId}/invitations/${invitation.body.invitation.id}`, { token: owner.accessToken }))
        .status,
    ).toBe(204);

    const all = await auditOf('?limit=100');
    expect(all.entries.map((e: { action: string }) => e.action)).toEqual(
      expect.arrayContaining([
        'agent.create',
        'agent.update',
        'api_key.create',
        'api_key.revoke',
        'invitation.create',
        'invitation.revoke',
      ]),
    );
    expect(all.entries.every((e: { actorId: string }) => e.actorId === owner.id)).toBe(true);

    const keys = await auditOf('?action=api_key.*');
    expect(keys.entries.map((e: { action: string }) => e.action).sort()).toEqual(['api_key.create', 'api_key.revoke']);
    expect(keys.entries[0]).toMatchObject({ resourceType: 'api_key', resourceId: key.body.apiKey.id });

    const onAgent = await auditOf(`?resourceType=agent&resourceId=${agentId}`);
    expect(onAgent.entries.map((e: { action: string }) => e.action)).toEqual(['agent.update', 'agent.create']);
    expect(onAgent.entries[0].metadata.fields).toEqual(['description']);

    expect((await auditOf(`?actorId=${owner.id}&from=${encodeURIComponent(before)}`)).total).toBe(all.total);
    expect((await auditOf(`?to=${encodeURIComponent(before)}`)).total).toBe(0);
    expect((await p.http.get('/api/audit-logs?from=yesterday', { token: owner.accessToken })).status).toBe(400);
  });

  it('keeps each organization to its own entries', async () => {
    const other = await registerUser(p.http, { label: 'audit-other' });
    expect((await auditOf('', other.accessToken)).total).toBe(0);
  });
});
