import { errors, op } from '../operation';

/** OpenID Connect sign-in through providers a platform administrator configures (issue 17). */
const uuid = { type: 'string', format: 'uuid' } as const;
const role = { enum: ['admin', 'editor', 'member', 'viewer'] } as const;
const slugParams = {
  type: 'object',
  required: ['slug'],
  properties: { slug: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,62}$' } },
};
const idParams = { type: 'object', required: ['id'], properties: { id: uuid } };

const settings = {
  slug: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,62}$', description: 'URL segment: /api/auth/sso/{slug}' },
  name: { type: 'string', minLength: 1, maxLength: 100 },
  preset: { enum: ['oidc', 'google'], description: 'google fills in issuerUrl https://accounts.google.com' },
  issuerUrl: { type: 'string', maxLength: 2048, description: 'https (http only for a loopback host); required for preset oidc' },
  clientId: { type: 'string', minLength: 1, maxLength: 1024 },
  clientSecret: { type: 'string', minLength: 1, maxLength: 4096 },
  allowedEmailDomains: {
    type: 'array',
    maxItems: 100,
    items: { type: 'string', minLength: 1, maxLength: 253 },
    description:
      'Email domains this provider speaks for: only they may sign in (empty: any), and only they are linked to an existing ' +
      'account with the same verified email and join organizationId',
  },
  organizationId: { ...uuid, description: 'The organization new users join' },
  defaultRole: { ...role, description: 'Role of new members (default member)' },
  groupClaim: { type: ['string', 'null'], maxLength: 100, description: 'Claim holding the user groups, e.g. groups' },
  groupRoles: { type: 'object', additionalProperties: role, description: 'Group value → role; the strongest match wins' },
  enabled: { type: 'boolean' },
} as const;
const { clientSecret: _secret, ...publicSettings } = settings;
const body = (required: string[]) => ({ type: 'object', additionalProperties: false, required, properties: settings });

const providerSchema = {
  type: 'object',
  required: ['id', 'slug', 'name', 'preset', 'issuerUrl', 'clientId', 'hasClientSecret', 'organizationId', 'defaultRole', 'enabled'],
  properties: {
    id: uuid,
    ...publicSettings,
    hasClientSecret: { type: 'boolean' },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
  },
};
const providerEnvelope = (description: string) => ({
  description,
  schema: { type: 'object', required: ['provider'], properties: { provider: providerSchema } },
});

export const ssoOperations = [
  op({
    operationId: 'ssoProviders',
    method: 'get',
    path: '/api/auth/sso',
    summary: 'The enabled OpenID Connect providers a sign-in page can offer',
    tags: ['auth'],
    auth: 'open',
    responses: {
      '200': {
        description: 'Providers',
        schema: {
          type: 'object',
          required: ['providers'],
          properties: {
            providers: {
              type: 'array',
              items: { type: 'object', required: ['slug', 'name'], properties: { slug: { type: 'string' }, name: { type: 'string' } } },
            },
          },
        },
      },
    },
  }),
  op({
    operationId: 'ssoStart',
    method: 'get',
    path: '/api/auth/sso/:slug',
    summary:
      'Redirect to the provider (authorization code + PKCE S256 + state + nonce); sets the state cookie (__Host-sso_state over ' +
      'TLS, else sso_state) the callback checks; 404 for an unknown or disabled provider',
    tags: ['auth'],
    auth: 'open',
    params: slugParams,
    responses: { '302': { description: 'Redirect to the identity provider' }, ...errors(404, 502) },
  }),
  op({
    operationId: 'ssoLink',
    method: 'post',
    path: '/api/auth/sso/:slug/link',
    summary:
      'Start the sign-in flow for the signed-in user: its callback links the provider’s identity to this user (the way to ' +
      'link a provider that may not link by email); open authorizationUrl in the same browser',
    tags: ['auth'],
    auth: 'user',
    params: slugParams,
    responses: {
      '200': {
        description: 'The provider’s authorization URL; the response also sets the state cookie the callback checks',
        schema: { type: 'object', required: ['authorizationUrl'], properties: { authorizationUrl: { type: 'string' } } },
      },
      ...errors(401, 404, 502),
    },
  }),
  op({
    operationId: 'ssoCallback',
    method: 'get',
    path: '/api/auth/sso/:slug/callback',
    summary:
      'Complete sign-in (ID token validated: signature against the JWKS, issuer, audience, expiry, nonce; state matched ' +
      'against the cookie of the browser that started it, else 400). An existing account with the same email is linked ' +
      'only when the provider lists its domain in allowedEmailDomains and verified the email, else 409 account_exists ' +
      '(sign in and use POST /api/auth/sso/{slug}/link); a link flow links the identity to its user. Redirects to the ' +
      'app with tokens in the URL fragment',
    tags: ['auth'],
    auth: 'open',
    params: slugParams,
    query: { type: 'object', properties: { code: { type: 'string' }, state: { type: 'string' }, error: { type: 'string' } } },
    responses: {
      '302': { description: 'Redirect to APP_URL/auth/callback#accessToken=...&refreshToken=...' },
      ...errors(400, 401, 403, 404, 409, 502),
    },
  }),
  op({
    operationId: 'createSsoProvider',
    method: 'post',
    path: '/api/admin/sso-providers',
    summary: 'Configure an OpenID Connect provider (superadmin); the client secret is never returned',
    tags: ['admin'],
    auth: 'user',
    body: body(['slug', 'name', 'clientId', 'clientSecret', 'organizationId']),
    responses: { '201': providerEnvelope('Created'), ...errors(400, 401, 403, 409) },
  }),
  op({
    operationId: 'listSsoProviders',
    method: 'get',
    path: '/api/admin/sso-providers',
    summary: 'Every configured provider (superadmin)',
    tags: ['admin'],
    auth: 'user',
    responses: {
      '200': {
        description: 'Providers',
        schema: { type: 'object', required: ['providers'], properties: { providers: { type: 'array', items: providerSchema } } },
      },
      ...errors(401, 403),
    },
  }),
  op({
    operationId: 'getSsoProvider',
    method: 'get',
    path: '/api/admin/sso-providers/:id',
    summary: 'One provider (superadmin)',
    tags: ['admin'],
    auth: 'user',
    params: idParams,
    responses: { '200': providerEnvelope('Provider'), ...errors(401, 403, 404) },
  }),
  op({
    operationId: 'updateSsoProvider',
    method: 'put',
    path: '/api/admin/sso-providers/:id',
    summary: 'Replace a provider’s settings (superadmin); without clientSecret the stored one is kept',
    tags: ['admin'],
    auth: 'user',
    params: idParams,
    body: body(['slug', 'name', 'clientId', 'organizationId']),
    responses: { '200': providerEnvelope('Updated'), ...errors(400, 401, 403, 404, 409) },
  }),
  op({
    operationId: 'deleteSsoProvider',
    method: 'delete',
    path: '/api/admin/sso-providers/:id',
    summary: 'Remove a provider and its account links (superadmin); linked users keep their accounts',
    tags: ['admin'],
    auth: 'user',
    params: idParams,
    responses: { '204': { description: 'Deleted' }, ...errors(401, 403, 404) },
  }),
];
