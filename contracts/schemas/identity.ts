import type { JsonSchema } from '../operation';

export const organizationClaimSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'name', 'slug', 'role'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    slug: { type: 'string' },
    role: { enum: ['owner', 'admin', 'editor', 'member', 'viewer'] },
  },
};

export const userSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'email', 'displayName', 'emailVerified', 'accountType', 'platformRole', 'isSuperAdmin', 'status', 'organizations'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    email: { type: 'string' },
    displayName: { type: 'string' },
    emailVerified: { type: 'boolean' },
    accountType: { enum: ['password', 'google'] },
    platformRole: { enum: ['user', 'superadmin'] },
    isSuperAdmin: { type: 'boolean' },
    status: { enum: ['active', 'suspended'] },
    organizations: { type: 'array', items: organizationClaimSchema },
  },
};

export const sessionEnvelopeSchema: JsonSchema = {
  type: 'object',
  required: ['success', 'data'],
  properties: {
    success: { const: true },
    data: {
      type: 'object',
      required: ['user', 'accessToken', 'refreshToken'],
      properties: { user: userSchema, accessToken: { type: 'string' }, refreshToken: { type: 'string' } },
    },
  },
};

const email = { type: 'string', format: 'email', maxLength: 254 };

export const registerBody: JsonSchema = {
  type: 'object',
  required: ['email', 'password'],
  properties: {
    email,
    password: { type: 'string', minLength: 8, maxLength: 256 },
    displayName: { type: 'string', minLength: 1, maxLength: 255 },
    organizationName: { type: 'string', minLength: 1, maxLength: 255 },
  },
};

export const loginBody: JsonSchema = {
  type: 'object',
  required: ['email', 'password'],
  properties: { email: { type: 'string', minLength: 1, maxLength: 254 }, password: { type: 'string', minLength: 1, maxLength: 256 } },
};

export const refreshBody: JsonSchema = {
  type: 'object',
  required: ['refreshToken'],
  properties: { refreshToken: { type: 'string', minLength: 1 } },
};
export const switchOrgBody: JsonSchema = {
  type: 'object',
  required: ['organizationId'],
  properties: { organizationId: { type: 'string', format: 'uuid' } },
};

export const invitationSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'email', 'role', 'status', 'expiresAt'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    email: { type: 'string' },
    role: { enum: ['admin', 'member', 'viewer'] },
    status: { enum: ['pending', 'accepted', 'revoked', 'expired'] },
    expiresAt: { type: 'string', format: 'date-time' },
    createdAt: { type: 'string', format: 'date-time' },
  },
};

export const inviteBody: JsonSchema = { type: 'object', required: ['email', 'role'], properties: { email, role: { type: 'string' } } };
export const acceptInvitationBody: JsonSchema = {
  type: 'object',
  required: ['token'],
  properties: { token: { type: 'string', minLength: 1 } },
};
export const memberSchema: JsonSchema = {
  type: 'object',
  required: ['userId', 'email', 'displayName', 'role'],
  properties: {
    userId: { type: 'string', format: 'uuid' },
    email: { type: 'string' },
    displayName: { type: 'string' },
    role: { type: 'string' },
  },
};
export const changeRoleBody: JsonSchema = { type: 'object', required: ['role'], properties: { role: { type: 'string' } } };
export const seatsSchema: JsonSchema = {
  type: 'object',
  required: ['usedSeats', 'totalSeats', 'pendingInvitations'],
  properties: { usedSeats: { type: 'integer' }, totalSeats: { type: 'integer' }, pendingInvitations: { type: 'integer' } },
};

export const apiKeySchema: JsonSchema = {
  type: 'object',
  required: ['id', 'name', 'scopes', 'prefix', 'createdAt', 'lastUsedAt'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    scopes: { type: 'array', items: { enum: ['agents:write', 'contacts:read'] } },
    prefix: { type: 'string' },
    createdAt: { type: 'string', format: 'date-time' },
    lastUsedAt: { type: ['string', 'null'], format: 'date-time' },
  },
};
export const createApiKeyBody: JsonSchema = {
  type: 'object',
  required: ['name', 'scopes'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255 },
    scopes: { type: 'array', items: { type: 'string' }, maxItems: 10 },
  },
};
