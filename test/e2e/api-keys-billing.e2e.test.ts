import { randomUUID } from 'node:crypto';

import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { joinOrganization, registerUser, uniqueEmail } from '../support/users';

const SUPERADMIN = uniqueEmail('root');
let p: TestPlatform;
beforeAll(async () => {
  p = await startTestPlatform({
    INITIAL_CREDITS_USD: '7.5',
    SUPERADMIN_EMAILS: ` someone-else@example.com , ${SUPERADMIN.toUpperCase()} `,
  });
}, BOOT_TIMEOUT_MS);
afterAll(() => p?.close(), BOOT_TIMEOUT_MS);

describe('API keys', () => {
  it('creates a key (201, secret shown once), lists keys without secrets, and the key works on /v1 until revoked', async () => {
    const owner = await registerUser(p.http, { label: 'keys-owner' });
    const created = await p.http.post(
      '/api/api-keys',
      { name: ' CI key ', scopes: ['agents:write', 'contacts:read', 'agents:write'] },
      { token: owner.accessToken },
    );
    expect(created.status).toBe(201);
    const { apiKey, key } = created.body;
    expect(Object.keys(apiKey).sort()).toEqual(['createdAt', 'id', 'lastUsedAt', 'name', 'prefix', 'scopes']);
    expect(apiKey).toMatchObject({ name: 'CI key', scopes: ['agents:write', 'contacts:read'], lastUsedAt: null });
    expect(typeof key).toBe('string');
    expect(key.startsWith(apiKey.prefix)).toBe(true);
    expect(key.length).toBeGreaterThan(apiKey.prefix.length + 20);

    const list = await p.http.get('/api/api-keys', { token: owner.accessToken });
    expect(list.status).toBe(200);
    expect(list.body.apiKeys).toEqual([expect.objectContaining({ id: apiKey.id, name: 'CI key', prefix: apiKey.prefix })]);
    expect(list.text).not.toContain(key);
    expect(list.text).not.toMatch(/secret|hash/i);

    const me = await p.http.get('/v1/me', { token: key });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ organizationId: owner.orgId, keyId: apiKey.id, scopes: ['agents:write', 'contacts:read'] });
    const used = await p.http.get('/api/api-keys', { token: owner.accessToken });
    expect(used.body.apiKeys[0].lastUsedAt).toEqual(expect.any(String));

    expect((await p.http.delete(`/api/api-keys/${apiKey.id}`, { token: owner.accessToken })).status).toBe(204);
    const revoked = await p.http.get('/v1/me', { token: key });
    expect(revoked.status).toBe(401);
    expect(revoked.body.error).toBe('Authentication Failed');
    expect((await p.http.get('/api/api-keys', { token: owner.accessToken })).body.apiKeys).toEqual([]);
    expect((await p.http.delete(`/api/api-keys/${apiKey.id}`, { token: owner.accessToken })).status).toBe(404);
  });

  it('refuses unknown scopes (400 Validation Error) and members (403)', async () => {
    const owner = await registerUser(p.http, { label: 'scope-owner' });
    const bad = await p.http.post(
      '/api/api-keys',
      { name: 'k', scopes: ['agents:write', 'root:everything'] },
      { token: owner.accessToken },
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('Validation Error');
    expect((await p.http.post('/api/api-keys', { name: '', scopes: [] }, { token: owner.accessToken })).status).toBe(400);
    expect((await p.http.post('/api/api-keys', { name: '   ', scopes: [] }, { token: owner.accessToken })).status).toBe(400);
    expect((await p.http.post('/api/api-keys', { name: 'k' }, { token: owner.accessToken })).status).toBe(400);

    const member = await registerUser(p.http, { label: 'scope-member' });
    await joinOrganization(p.http, owner, owner.orgId, member, 'member');
    const forbidden = await p.http.post('/api/api-keys', { name: 'mine', scopes: ['contacts:read'] }, { token: member.accessToken });
    expect(forbidden.status).toBe(403);
    expect((await p.http.get('/api/api-keys', { token: member.accessToken })).status).toBe(403);

    const admin = await registerUser(p.http, { label: 'scope-admin' });
    await joinOrganization(p.http, owner, owner.orgId, admin, 'admin');
    expect((await p.http.post('/api/api-keys', { name: 'admin key', scopes: [] }, { token: admin.accessToken })).status).toBe(201);
  });

  it('answers 401 Missing or invalid authorization header without a key, and refuses JWTs and made-up keys on /v1', async () => {
    const owner = await registerUser(p.http, { label: 'v1-owner' });
    const missing = await p.http.get('/v1/me');
    expect(missing.status).toBe(401);
    expect(missing.body.error).toBe('Missing or invalid authorization header');
    expect((await p.http.get('/v1/me', { headers: { authorization: 'Basic abc' } })).body.error).toBe(
      'Missing or invalid authorization header',
    );
    expect((await p.http.get('/v1/me', { token: owner.accessToken })).status).toBe(401);
    expect((await p.http.get('/v1/me', { token: 'ap_live_madeupmadeupmadeupmadeup' })).status).toBe(401);
  });

  it("keeps keys to their organization: another organization's key cannot be revoked (404)", async () => {
    const a = await registerUser(p.http, { label: 'ka' });
    const b = await registerUser(p.http, { label: 'kb' });
    const created = await p.http.post('/api/api-keys', { name: 'a', scopes: ['contacts:read'] }, { token: a.accessToken });
    expect((await p.http.delete(`/api/api-keys/${created.body.apiKey.id}`, { token: b.accessToken })).status).toBe(404);
    expect((await p.http.get('/api/api-keys', { token: b.accessToken })).body.apiKeys).toEqual([]);
    expect((await p.http.get('/v1/me', { token: created.body.key })).status).toBe(200);
  });
});

describe('wallet, credits and audit', () => {
  it('a new organization starts with INITIAL_CREDITS_USD', async () => {
    const owner = await registerUser(p.http, { label: 'wallet' });
    const r = await p.http.get('/api/billing/wallet', { token: owner.accessToken });
    expect(r.status).toBe(200);
    expect(r.body.wallet).toMatchObject({ organizationId: owner.orgId, balance: 7.5, currency: 'USD' });
    expect(r.body.events).toEqual([expect.objectContaining({ kind: 'initial_credit', organizationId: owner.orgId })]);
  });

  it('a superadmin (SUPERADMIN_EMAILS) tops up any organization; everyone else gets 403; the top-up is audited', async () => {
    const root = await registerUser(p.http, { email: SUPERADMIN });
    expect(root.user).toMatchObject({ platformRole: 'superadmin', isSuperAdmin: true });
    const owner = await registerUser(p.http, { label: 'topped' });
    const member = await registerUser(p.http, { label: 'topped-member' });
    await joinOrganization(p.http, owner, owner.orgId, member, 'member');

    const path = `/api/admin/organizations/${owner.orgId}/credits`;
    const denied = await p.http.post(path, { amountUsd: 100 }, { token: owner.accessToken });
    expect(denied.status).toBe(403);
    expect((await p.http.post(path, { amountUsd: 100 }, { token: member.accessToken })).status).toBe(403);

    const ok = await p.http.post(path, { amountUsd: 2.25 }, { token: root.accessToken });
    expect(ok.status).toBe(200);
    expect(ok.body.wallet).toMatchObject({ organizationId: owner.orgId, balance: 9.75 });
    const wallet = await p.http.get('/api/billing/wallet', { token: owner.accessToken });
    expect(wallet.body.wallet.balance).toBe(9.75);
    expect(wallet.body.balance).toBe(9.75);
    expect(wallet.body.events.map((e: any) => e.kind)).toEqual(['top_up', 'initial_credit']);

    expect((await p.http.post(path, { amountUsd: 0 }, { token: root.accessToken })).status).toBe(400);
    expect((await p.http.post(path, { amountUsd: 'lots' }, { token: root.accessToken })).status).toBe(400);
    expect(
      (await p.http.post(`/api/admin/organizations/${randomUUID()}/credits`, { amountUsd: 1 }, { token: root.accessToken })).status,
    ).toBe(404);

    const audit = await p.http.get('/api/audit-logs?action=billing.top_up', { token: owner.accessToken });
    expect(audit.status).toBe(200);
    expect(audit.body).toMatchObject({ total: 1, limit: 50, offset: 0 });
    expect(audit.body.entries[0]).toMatchObject({
      organizationId: owner.orgId,
      actorId: root.id,
      action: 'billing.top_up',
      resourceType: 'wallet',
      metadata: { amountUsd: 2.25 },
    });
    expect((await p.http.get('/api/audit-logs?action=agent.delete', { token: owner.accessToken })).body).toMatchObject({
      total: 0,
      entries: [],
    });
    expect((await p.http.get('/api/audit-logs?limit=0', { token: owner.accessToken })).status).toBe(400);
    // Members cannot read the audit log; other organizations see nothing of it.
    expect((await p.http.get('/api/audit-logs', { token: member.accessToken })).status).toBe(403);
    expect((await p.http.get('/api/audit-logs', { token: root.accessToken })).body.total).toBe(0);
  });
});
