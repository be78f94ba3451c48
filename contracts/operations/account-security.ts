import { errors, op } from '../operation';
import { sessionEnvelopeSchema, userSchema } from '../schemas/identity';

/** Password change and account suspension: both revoke every token issued before them (issue 8). */
export const accountSecurityOperations = [
  op({
    operationId: 'changePassword',
    method: 'post',
    path: '/api/auth/change-password',
    summary:
      'Change your password (current one required; at least PASSWORD_MIN_LENGTH characters, not a common password). ' +
      'Every refresh token is revoked and every access token issued before is refused; the response is a fresh session.',
    tags: ['auth'],
    auth: 'user',
    body: {
      type: 'object',
      required: ['currentPassword', 'newPassword'],
      additionalProperties: false,
      properties: {
        currentPassword: { type: 'string', minLength: 1, maxLength: 256 },
        newPassword: { type: 'string', minLength: 8, maxLength: 256 },
      },
    },
    responses: { '200': { description: 'New session', schema: sessionEnvelopeSchema }, ...errors(400, 401, 403, 429) },
  }),
  op({
    operationId: 'setAccountStatus',
    method: 'patch',
    path: '/api/admin/users/:id',
    summary:
      'Suspend or reactivate an account (superadmin). Suspension revokes every refresh token and refuses every access token at once.',
    tags: ['admin'],
    auth: 'user',
    params: { type: 'object', required: ['id'], properties: { id: { type: 'string', format: 'uuid' } } },
    body: {
      type: 'object',
      required: ['status'],
      additionalProperties: false,
      properties: { status: { enum: ['active', 'suspended'] } },
    },
    responses: {
      '200': { description: 'The account', schema: { type: 'object', required: ['user'], properties: { user: userSchema } } },
      ...errors(400, 401, 403, 404),
    },
  }),
];
