import { API_KEY_SCOPES } from '../../core/api-keys/api-key';
export const organizationClaimSchema = {
  type: 'object',
  required: ['id', 'name', 'slug', 'role'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    slug: { type: 'string' },
    role: { enum: ['owner', 'admin', 'editor', 'member', 'viewer'] },
  },
} as const;

export const userSchema = {
  type: 'object',
  required: ['id', 'email', 'displayName', 'emailVerified', 'accountType', 'platformRole', 'isSuperAdmin', 'status', 'organizations'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    email: { type: 'string' },
    displayName: { type: 'string' },
    emailVerified: { type: 'boolean' },
    accountType: { enum: ['password', 'google', 'sso'] },
    platformRole: { enum: ['user', 'superadmin'] },
    isSuperAdmin: { type: 'boolean' },
    status: { enum: ['active', 'suspended'] },
    organizations: { type: 'array', items: organizationClaimSchema },
  },
} as const;

export const sessionEnvelopeSchema = {
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
} as const;

const email = { type: 'string', format: 'email', maxLength: 254 } as const;

export const registerBody = {
  type: 'object',
  required: ['email', 'password'],
  properties: {
    email,
    password: { type: 'string', minLength: 8, maxLength: 256 },
    displayName: { type: 'string', minLength: 1, maxLength: 255 },
    organizationName: { type: 'string', minLength: 1, maxLength: 255 },
  },
} as const;

export const loginBody = {
  type: 'object',
  required: ['email', 'password'],
  properties: { email: { type: 'string', minLength: 1, maxLength: 254 }, password: { type: 'string', minLength: 1, maxLength: 256 } },
} as const;

export const refreshBody = {
  type: 'object',
  required: ['refreshToken'],
  properties: { refreshToken: { type: 'string', minLength: 1 } },
} as const;
export const switchOrgBody = {
  type: 'object',
  required: ['organizationId'],
  properties: { organizationId: { type: 'string', format: 'uuid' } },
} as const;

export const invitationSchema = {
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
} as const;

export const inviteBody = { type: 'object', required: ['email', 'role'], properties: { email, role: { type: 'string' } } } as const;
export const acceptInvitationBody = {
  type: 'object',
  required: ['token'],
  properties: { token: { type: 'string', minLength: 1 } },
} as const;
export const memberSchema = {
  type: 'object',
  required: ['userId', 'email', 'displayName', 'role'],
  properties: {
    userId: { type: 'string', format: 'uuid' },
    email: { type: 'string' },
    displayName: { type: 'string' },
    role: { type: 'string' },
  },
} as const;
export const changeRoleBody = { type: 'object', required: ['role'], properties: { role: { type: 'string' } } } as const;
export const seatsSchema = {
  type: 'object',
  required: ['usedSeats', 'totalSeats', 'pendingInvitations'],
  properties: { usedSeats: { type: 'integer' }, totalSeats: { type: 'integer' }, pendingInvitations: { type: 'integer' } },
} as const;

export const apiKeySchema = {
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
} as const;
export const createApiKeyBody = {
  type: 'object',
  required: ['name', 'scopes'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255 },
    scopes: {
      type: 'array',
      // An empty list stays allowed (a key that /v1 refuses with insufficient_scope), as docs/contracts.md defines it.
      items: { type: 'string', enum: [...API_KEY_SCOPES] },
      maxItems: 10,
      description: 'What the key may do on /v1: agents:write (from-url builds and their events), contacts:read (contacts export)',
    },
  },
} as const;
