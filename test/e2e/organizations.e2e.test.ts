import { randomUUID } from 'node:crypto';

import { claimsOf } from '../support/http';
import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { joinOrganization, registerUser, switchTo, uniqueEmail } from '../support/users';

// Two seats per organization: the owner and one more person (a member or a pending invitation).
let p: TestPlatform;
beforeAll(async () => {
  p = await startTestPlatform({ PLAN_SEATS: '2' });
}, BOOT_TIMEOUT_MS);
afterAll(() => p?.close(), BOOT_TIMEOUT_MS);

const seatsOf = async (orgId: string, token: string) => (await p.http.get(`/api/organizations/${orgId}/seats`, { token })).body;
const invite = (orgId: string, token: string, email: string, role = 'member') =>
  p.http.post(`/api/organizations/${orgId}/invitations`, { email, role }, { token });

describe('invitations and seats', () => {
  it('an owner invites; a pending invitation holds a seat; revoking frees it', async () => {
    const owner = await registerUser(p.http, { label: 'seat-owner' });
    expect(await seatsOf(owner.orgId, owner.accessToken)).toEqual({ usedSeats: 1, totalSeats: 2, pendingInvitations: 0 });

    const email = uniqueEmail('Invitee');
    const first = await invite(owner.orgId, owner.accessToken, email);
    expect(first.status).toBe(201);
    expect(first.body.invitation).toMatchObject({ email: email.toLowerCase(), role: 'member', status: 'pending' });
    expect(Date.parse(first.body.invitation.expiresAt)).toBeGreaterThan(Date.now());
    expect(typeof first.body.token).toBe('string');
    expect(await seatsOf(owner.orgId, owner.accessToken)).toEqual({ usedSeats: 1, totalSeats: 2, pendingInvitations: 1 });

    const full = await invite(owner.orgId, owner.accessToken, uniqueEmail('second'));
    expect(full.status).toBe(403);
    expect(full.body.error).toBe('seat_limit_reached');

    const list = await p.http.get(`/api/organizations/${owner.orgId}/invitations`, { token: owner.accessToken });
    expect(list.status).toBe(200);
    expect(list.body.invitations).toEqual([expect.objectContaining({ id: first.body.invitation.id, status: 'pending' })]);
    expect(JSON.stringify(list.body)).not.toContain(first.body.token);

    expect(
      (await p.http.delete(`/api/organizations/${owner.orgId}/invitations/${first.body.invitation.id}`, { token: owner.accessToken }))
        .status,
    ).toBe(204);
    expect(await seatsOf(owner.orgId, owner.accessToken)).toEqual({ usedSeats: 1, totalSeats: 2, pendingInvitations: 0 });
    expect(
      (await p.http.delete(`/api/organizations/${owner.orgId}/invitations/${first.body.invitation.id}`, { token: owner.accessToken }))
        .status,
    ).toBe(404);
    const after = await p.http.get(`/api/organizations/${owner.orgId}/invitations`, { token: owner.accessToken });
    // Revoked is gone from the list (the DELETE answered 204), not kept as a pending-looking row.
    expect(after.body.invitations.map((i: { id: string }) => i.id)).not.toContain(first.body.invitation.id);

    // The freed seat takes a new invitation; the revoked token no longer works.
    expect((await invite(owner.orgId, owner.accessToken, uniqueEmail('third'))).status).toBe(201);
    const invitee = await registerUser(p.http, { email });
    expect((await p.http.post('/api/invitations/accept', { token: first.body.token }, { token: invitee.accessToken })).status).toBe(404);
  });

  it('refuses owner and unknown roles with 400 Validation Error, and duplicates with 409', async () => {
    const owner = await registerUser(p.http, { label: 'roles-owner' });
    for (const role of ['owner', 'editor', 'superuser']) {
      const r = await invite(owner.orgId, owner.accessToken, uniqueEmail('role'), role);
      expect({ role, status: r.status, error: r.body.error }).toEqual({ role, status: 400, error: 'Validation Error' });
    }
    expect((await invite(owner.orgId, owner.accessToken, 'not an email')).status).toBe(400);
    const email = uniqueEmail('twice');
    expect((await invite(owner.orgId, owner.accessToken, email, 'viewer')).status).toBe(201);
    expect((await invite(owner.orgId, owner.accessToken, email.toUpperCase(), 'viewer')).status).toBe(409);
    expect((await invite(owner.orgId, owner.accessToken, owner.email)).status).toBe(409); // already a member
  });

  it("accepts with the invitee's own token; another email is 403; the organization then appears in the invitee's tokens", async () => {
    const owner = await registerUser(p.http, { label: 'accept-owner', organizationName: 'Joinable' });
    const invitee = await registerUser(p.http, { label: 'accept-invitee' });
    const stranger = await registerUser(p.http, { label: 'accept-stranger' });
    const inv = await invite(owner.orgId, owner.accessToken, invitee.email.toUpperCase(), 'viewer');
    expect(inv.status).toBe(201);

    const wrong = await p.http.post('/api/invitations/accept', { token: inv.body.token }, { token: stranger.accessToken });
    expect(wrong.status).toBe(403);
    expect((await p.http.post('/api/invitations/accept', { token: inv.body.token })).status).toBe(401);
    expect((await p.http.post('/api/invitations/accept', { token: 'made-up' }, { token: invitee.accessToken })).status).toBe(404);

    const ok = await p.http.post('/api/invitations/accept', { token: inv.body.token }, { token: invitee.accessToken });
    expect(ok.status).toBe(200);
    expect(ok.body.organization).toEqual({ id: owner.orgId, name: 'Joinable', slug: expect.any(String), role: 'viewer' });
    expect((await p.http.post('/api/invitations/accept', { token: inv.body.token }, { token: invitee.accessToken })).status).toBe(404);

    const refreshed = await p.http.post('/api/auth/refresh', { refreshToken: invitee.refreshToken });
    expect(refreshed.status).toBe(200);
    const orgs = claimsOf(refreshed.body.data.accessToken).organizations;
    expect(orgs[0].id).toBe(invitee.orgId); // the active organization does not change by itself
    expect(orgs).toContainEqual(expect.objectContaining({ id: owner.orgId, role: 'viewer' }));
    expect(refreshed.body.data.user.organizations).toEqual(orgs);

    expect(await seatsOf(owner.orgId, owner.accessToken)).toEqual({ usedSeats: 2, totalSeats: 2, pendingInvitations: 0 });
    const invitations = await p.http.get(`/api/organizations/${owner.orgId}/invitations`, { token: owner.accessToken });
    expect(invitations.body.invitations[0].status).toBe('accepted');
  });

  it('members and viewers cannot invite (403)', async () => {
    const owner = await registerUser(p.http, { label: 'rbac-owner' });
    const member = await registerUser(p.http, { label: 'rbac-member' });
    await joinOrganization(p.http, owner, owner.orgId, member, 'member');
    expect((await invite(owner.orgId, member.accessToken, uniqueEmail('x'))).status).toBe(403);
    expect((await p.http.get(`/api/organizations/${owner.orgId}/invitations`, { token: member.accessToken })).status).toBe(403);

    const owner2 = await registerUser(p.http, { label: 'rbac-owner2' });
    const viewer = await registerUser(p.http, { label: 'rbac-viewer' });
    await joinOrganization(p.http, owner2, owner2.orgId, viewer, 'viewer');
    const r = await invite(owner2.orgId, viewer.accessToken, uniqueEmail('y'), 'viewer');
    expect(r.status).toBe(403);
    expect(r.body.error).toBe('Forbidden');
  });
});

describe('members', () => {
  it('lists, changes roles and removes members; the last owner stays', async () => {
    const owner = await registerUser(p.http, { label: 'm-owner', displayName: 'Olga Owner' });
    const member = await registerUser(p.http, { label: 'm-member', displayName: 'Max Member' });
    await joinOrganization(p.http, owner, owner.orgId, member, 'member');

    const list = await p.http.get(`/api/organizations/${owner.orgId}/members`, { token: member.accessToken });
    expect(list.status).toBe(200);
    expect(list.body.members).toEqual([
      { userId: owner.id, email: owner.email, displayName: 'Olga Owner', role: 'owner' },
      { userId: member.id, email: member.email, displayName: 'Max Member', role: 'member' },
    ]);

    const url = `/api/organizations/${owner.orgId}/members/${member.id}`;
    expect((await p.http.patch(url, { role: 'admin' }, { token: member.accessToken })).status).toBe(403);
    const changed = await p.http.patch(url, { role: 'viewer' }, { token: owner.accessToken });
    expect(changed.status).toBe(200);
    expect(changed.body.member).toEqual({ userId: member.id, email: member.email, displayName: 'Max Member', role: 'viewer' });
    // The role is read from the store on every request: the old token already carries less power.
    expect((await p.http.get(`/api/organizations/${owner.orgId}/members`, { token: member.accessToken })).body.members[1].role).toBe(
      'viewer',
    );
    expect((await p.http.patch(url, { role: 'emperor' }, { token: owner.accessToken })).status).toBe(400);

    const self = `/api/organizations/${owner.orgId}/members/${owner.id}`;
    expect((await p.http.patch(self, { role: 'admin' }, { token: owner.accessToken })).status).toBe(409);
    expect((await p.http.delete(self, { token: owner.accessToken })).status).toBe(409);
    expect((await p.http.delete(self, { token: member.accessToken })).status).toBe(403);
    expect(
      (await p.http.patch(`/api/organizations/${owner.orgId}/members/${randomUUID()}`, { role: 'viewer' }, { token: owner.accessToken }))
        .status,
    ).toBe(404);

    expect((await p.http.delete(url, { token: owner.accessToken })).status).toBe(204);
    const after = await p.http.get(`/api/organizations/${owner.orgId}/members`, { token: owner.accessToken });
    expect(after.body.members.map((m: any) => m.userId)).toEqual([owner.id]);
    // Removed: the organization is no longer the member's to see, even with the old token.
    expect((await p.http.get(`/api/organizations/${owner.orgId}/members`, { token: member.accessToken })).status).toBe(404);
    expect(await seatsOf(owner.orgId, owner.accessToken)).toEqual({ usedSeats: 1, totalSeats: 2, pendingInvitations: 0 });
  });

  it('an admin manages members but cannot touch an owner', async () => {
    const owner = await registerUser(p.http, { label: 'a-owner' });
    const admin = await registerUser(p.http, { label: 'a-admin' });
    await joinOrganization(p.http, owner, owner.orgId, admin, 'admin');
    expect(
      (await p.http.patch(`/api/organizations/${owner.orgId}/members/${owner.id}`, { role: 'viewer' }, { token: admin.accessToken }))
        .status,
    ).toBe(403);
    expect((await p.http.delete(`/api/organizations/${owner.orgId}/members/${owner.id}`, { token: admin.accessToken })).status).toBe(403);
    expect(
      (await p.http.patch(`/api/organizations/${owner.orgId}/members/${admin.id}`, { role: 'owner' }, { token: admin.accessToken })).status,
    ).toBe(403);
    expect((await p.http.get(`/api/organizations/${owner.orgId}/invitations`, { token: admin.accessToken })).status).toBe(200);
  });
});

describe('organization isolation', () => {
  it("another organization's members, invitations and seats answer 404", async () => {
    const a = await registerUser(p.http, { label: 'iso-a' });
    const b = await registerUser(p.http, { label: 'iso-b' });
    const inv = await invite(a.orgId, a.accessToken, uniqueEmail('iso'));
    const paths = [
      ['GET', `/api/organizations/${a.orgId}/members`],
      ['GET', `/api/organizations/${a.orgId}/invitations`],
      ['GET', `/api/organizations/${a.orgId}/seats`],
      ['POST', `/api/organizations/${a.orgId}/invitations`],
      ['DELETE', `/api/organizations/${a.orgId}/invitations/${inv.body.invitation.id}`],
      ['PATCH', `/api/organizations/${a.orgId}/members/${a.id}`],
      ['DELETE', `/api/organizations/${a.orgId}/members/${a.id}`],
    ] as const;
    for (const [method, path] of paths) {
      const body = method === 'POST' ? { email: uniqueEmail('iso2'), role: 'member' } : method === 'PATCH' ? { role: 'viewer' } : undefined;
      const r = await p.http.request(method, path, { token: b.accessToken, body });
      expect({ method, path, status: r.status }).toEqual({ method, path, status: 404 });
    }
    // Nothing changed in A.
    expect(await seatsOf(a.orgId, a.accessToken)).toEqual({ usedSeats: 1, totalSeats: 2, pendingInvitations: 1 });
    // B's token switched to A is refused too.
    expect((await p.http.post('/api/auth/switch-org', { organizationId: a.orgId }, { token: b.accessToken })).status).toBe(403);
    await switchTo(p.http, b, b.orgId);
    expect((await p.http.get(`/api/organizations/not-a-uuid/members`, { token: b.accessToken })).status).toBe(400);
  });
});
