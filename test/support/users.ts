import { randomUUID } from 'node:crypto';

import type { HttpClient } from './http';

export interface TestUser {
  id: string;
  email: string;
  password: string;
  /** The organization created at registration (the user owns it). */
  orgId: string;
  accessToken: string;
  refreshToken: string;
  user: any;
}

export const uniqueEmail = (label = 'user') => `${label}-${randomUUID().slice(0, 12)}@example.com`;

/** Registers through the gateway and fails loudly unless the platform answers 201. */
export async function registerUser(
  http: HttpClient,
  input: { label?: string; email?: string; password?: string; displayName?: string; organizationName?: string } = {},
): Promise<TestUser> {
  const email = input.email ?? uniqueEmail(input.label);
  const password = input.password ?? `pw-${randomUUID()}`;
  const r = await http.post('/api/auth/register', {
    email,
    password,
    displayName: input.displayName ?? input.label ?? 'Test User',
    ...(input.organizationName ? { organizationName: input.organizationName } : {}),
  });
  if (r.status !== 201) throw new Error(`register ${email} failed: ${r.status} ${r.text}`);
  const { user, accessToken, refreshToken } = r.body.data;
  return { id: user.id, email, password, orgId: user.organizations[0].id, accessToken, refreshToken, user };
}

/** Replaces the user's tokens with a session that has `organizationId` active (first). */
export async function switchTo(http: HttpClient, user: TestUser, organizationId: string): Promise<TestUser> {
  const r = await http.post('/api/auth/switch-org', { organizationId }, { token: user.accessToken });
  if (r.status !== 200) throw new Error(`switch-org failed: ${r.status} ${r.text}`);
  user.accessToken = r.body.data.accessToken;
  user.refreshToken = r.body.data.refreshToken;
  user.user = r.body.data.user;
  return user;
}

/** Owner invites, the invitee accepts with their own token, then works in that organization. */
export async function joinOrganization(
  http: HttpClient,
  owner: TestUser,
  organizationId: string,
  member: TestUser,
  role: 'admin' | 'member' | 'viewer',
) {
  const invite = await http.post(
    `/api/organizations/${organizationId}/invitations`,
    { email: member.email, role },
    { token: owner.accessToken },
  );
  if (invite.status !== 201) throw new Error(`invite failed: ${invite.status} ${invite.text}`);
  const accept = await http.post('/api/invitations/accept', { token: invite.body.token }, { token: member.accessToken });
  if (accept.status !== 200) throw new Error(`accept failed: ${accept.status} ${accept.text}`);
  return switchTo(http, member, organizationId);
}
