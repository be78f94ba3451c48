import { errors, op } from '../operation';
import * as s from '../schemas/identity';

const orgParams = { type: 'object', required: ['orgId'], properties: { orgId: { type: 'string', format: 'uuid' } } };
const session = { description: 'Signed in', schema: s.sessionEnvelopeSchema };

export const identityOperations = [
  op({
    operationId: 'register',
    method: 'post',
    path: '/api/auth/register',
    summary:
      'Create a user and their organization (owner). The password needs PASSWORD_MIN_LENGTH characters (default 8) and must ' +
      'not be a common password; registrations per client address are limited (429 with Retry-After).',
    tags: ['auth'],
    auth: 'open',
    body: s.registerBody,
    responses: { '201': session, ...errors(400, 409, 429) },
  }),
  op({
    operationId: 'login',
    method: 'post',
    path: '/api/auth/login',
    summary:
      'Sign in with email and password. Failed sign-ins are limited per account and per client address: past the limit ' +
      'the account is locked for the window (429 with Retry-After, even with the right password).',
    tags: ['auth'],
    auth: 'open',
    body: s.loginBody,
    responses: { '200': session, ...errors(400, 401, 403, 429) },
  }),
  op({
    operationId: 'refresh',
    method: 'post',
    path: '/api/auth/refresh',
    summary: 'Exchange a refresh token for a new pair (rotation; reuse revokes the family)',
    tags: ['auth'],
    auth: 'open',
    body: s.refreshBody,
    responses: { '200': session, ...errors(400, 401, 403) },
  }),
  op({
    operationId: 'switchOrganization',
    method: 'post',
    path: '/api/auth/switch-org',
    summary: 'Re-issue both tokens with the chosen organization first',
    tags: ['auth'],
    auth: 'user',
    body: s.switchOrgBody,
    responses: { '200': session, ...errors(400, 401, 403) },
  }),
  op({
    operationId: 'me',
    method: 'get',
    path: '/api/auth/me',
    summary: 'The signed-in user and their organizations (active first)',
    tags: ['auth'],
    auth: 'user',
    responses: {
      '200': { description: 'Current user', schema: { type: 'object', required: ['user'], properties: { user: s.userSchema } } },
      ...errors(401),
    },
  }),
  op({
    operationId: 'googleStart',
    method: 'get',
    path: '/api/auth/google',
    summary: 'Redirect to the Google consent screen (authorization code + state + PKCE); 404 when not configured',
    tags: ['auth'],
    auth: 'open',
    responses: { '302': { description: 'Redirect to the identity provider' }, ...errors(404) },
  }),
  op({
    operationId: 'googleCallback',
    method: 'get',
    path: '/api/auth/google/callback',
    summary: 'Complete Google sign-in; redirects to the app with tokens in the URL fragment',
    tags: ['auth'],
    auth: 'open',
    query: { type: 'object', properties: { code: { type: 'string' }, state: { type: 'string' }, error: { type: 'string' } } },
    responses: { '302': { description: 'Redirect to APP_URL/auth/callback#accessToken=...&refreshToken=...' }, ...errors(400, 401, 404) },
  }),
  op({
    operationId: 'createInvitation',
    method: 'post',
    path: '/api/organizations/:orgId/invitations',
    summary: 'Invite someone (admin, member or viewer); owners and admins; needs a free seat',
    tags: ['organizations'],
    auth: 'user',
    params: orgParams,
    body: s.inviteBody,
    responses: {
      '201': {
        description: 'Invitation and its one-time token',
        schema: {
          type: 'object',
          required: ['invitation', 'token'],
          properties: { invitation: s.invitationSchema, token: { type: 'string' } },
        },
      },
      ...errors(400, 403, 404, 409),
    },
  }),
  op({
    operationId: 'listInvitations',
    method: 'get',
    path: '/api/organizations/:orgId/invitations',
    summary: 'Invitations of the organization',
    tags: ['organizations'],
    auth: 'user',
    params: orgParams,
    responses: {
      '200': {
        description: 'Invitations',
        schema: { type: 'object', required: ['invitations'], properties: { invitations: { type: 'array', items: s.invitationSchema } } },
      },
      ...errors(403, 404),
    },
  }),
  op({
    operationId: 'revokeInvitation',
    method: 'delete',
    path: '/api/organizations/:orgId/invitations/:id',
    summary: 'Revoke a pending invitation (frees the seat)',
    tags: ['organizations'],
    auth: 'user',
    params: {
      type: 'object',
      required: ['orgId', 'id'],
      properties: { orgId: { type: 'string', format: 'uuid' }, id: { type: 'string', format: 'uuid' } },
    },
    responses: { '204': { description: 'Revoked' }, ...errors(403, 404) },
  }),
  op({
    operationId: 'acceptInvitation',
    method: 'post',
    path: '/api/invitations/accept',
    summary: "Accept an invitation with the invitee's own token (emails must match)",
    tags: ['organizations'],
    auth: 'user',
    body: s.acceptInvitationBody,
    responses: {
      '200': {
        description: 'Joined',
        schema: {
          type: 'object',
          required: ['organization'],
          properties: {
            organization: {
              type: 'object',
              required: ['id', 'name', 'slug', 'role'],
              properties: { id: { type: 'string' }, name: { type: 'string' }, slug: { type: 'string' }, role: { type: 'string' } },
            },
          },
        },
      },
      ...errors(403, 404),
    },
  }),
  op({
    operationId: 'listMembers',
    method: 'get',
    path: '/api/organizations/:orgId/members',
    summary: 'Members of the organization',
    tags: ['organizations'],
    auth: 'user',
    params: orgParams,
    responses: {
      '200': {
        description: 'Members',
        schema: { type: 'object', required: ['members'], properties: { members: { type: 'array', items: s.memberSchema } } },
      },
      ...errors(403, 404),
    },
  }),
  op({
    operationId: 'changeMemberRole',
    method: 'patch',
    path: '/api/organizations/:orgId/members/:userId',
    summary: "Change a member's role (owners and admins)",
    tags: ['organizations'],
    auth: 'user',
    params: {
      type: 'object',
      required: ['orgId', 'userId'],
      properties: { orgId: { type: 'string', format: 'uuid' }, userId: { type: 'string', format: 'uuid' } },
    },
    body: s.changeRoleBody,
    responses: {
      '200': { description: 'Updated member', schema: { type: 'object', properties: { member: s.memberSchema } } },
      ...errors(400, 403, 404, 409),
    },
  }),
  op({
    operationId: 'removeMember',
    method: 'delete',
    path: '/api/organizations/:orgId/members/:userId',
    summary: 'Remove a member (owners and admins)',
    tags: ['organizations'],
    auth: 'user',
    params: {
      type: 'object',
      required: ['orgId', 'userId'],
      properties: { orgId: { type: 'string', format: 'uuid' }, userId: { type: 'string', format: 'uuid' } },
    },
    responses: { '204': { description: 'Removed' }, ...errors(403, 404, 409) },
  }),
  op({
    operationId: 'seatUsage',
    method: 'get',
    path: '/api/organizations/:orgId/seats',
    summary: 'Seat usage; pending invitations hold seats',
    tags: ['organizations'],
    auth: 'user',
    params: orgParams,
    responses: { '200': { description: 'Seats', schema: s.seatsSchema }, ...errors(403, 404) },
  }),
  op({
    operationId: 'createApiKey',
    method: 'post',
    path: '/api/api-keys',
    summary: 'Create an organization API key (owners and admins); the secret is shown once',
    tags: ['api-keys'],
    auth: 'user',
    body: s.createApiKeyBody,
    responses: {
      '201': {
        description: 'Created',
        schema: { type: 'object', required: ['apiKey', 'key'], properties: { apiKey: s.apiKeySchema, key: { type: 'string' } } },
      },
      ...errors(400, 403),
    },
  }),
  op({
    operationId: 'listApiKeys',
    method: 'get',
    path: '/api/api-keys',
    summary: 'API keys of the active organization (no secrets)',
    tags: ['api-keys'],
    auth: 'user',
    responses: {
      '200': {
        description: 'Keys',
        schema: { type: 'object', required: ['apiKeys'], properties: { apiKeys: { type: 'array', items: s.apiKeySchema } } },
      },
      ...errors(403),
    },
  }),
  op({
    operationId: 'revokeApiKey',
    method: 'delete',
    path: '/api/api-keys/:id',
    summary: 'Revoke an API key; it gets 401 on /v1 from then on',
    tags: ['api-keys'],
    auth: 'user',
    params: { type: 'object', required: ['id'], properties: { id: { type: 'string', format: 'uuid' } } },
    responses: { '204': { description: 'Revoked' }, ...errors(403, 404) },
  }),
  op({
    operationId: 'apiKeyWhoami',
    method: 'get',
    path: '/v1/me',
    summary: 'The organization and scopes of the calling API key',
    tags: ['api-keys'],
    auth: 'apiKey',
    responses: {
      '200': {
        description: 'Key principal',
        schema: {
          type: 'object',
          properties: {
            organizationId: { type: 'string' },
            keyId: { type: 'string' },
            scopes: { type: 'array', items: { type: 'string' } },
          },
        },
      },
      ...errors(401),
    },
  }),
];
