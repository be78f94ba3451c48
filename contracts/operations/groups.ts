import { errors, op } from '../operation';

/** User groups of an organization (docs/contracts.md "Groups"). */
const tags = ['organizations'];
const uuid = { type: 'string', format: 'uuid' };
const params = (...names: string[]) => ({
  type: 'object',
  required: names,
  properties: Object.fromEntries(names.map((n) => [n, uuid])),
});

const groupSchema = {
  type: 'object',
  required: ['id', 'name', 'memberCount', 'createdAt'],
  properties: { id: uuid, name: { type: 'string' }, memberCount: { type: 'integer' }, createdAt: { type: 'string', format: 'date-time' } },
};
const groupMemberSchema = {
  type: 'object',
  required: ['userId', 'email', 'displayName', 'addedAt'],
  properties: {
    userId: uuid,
    email: { type: 'string' },
    displayName: { type: 'string' },
    addedAt: { type: 'string', format: 'date-time' },
  },
};

export const groupOperations = [
  op({
    operationId: 'createGroup',
    method: 'post',
    path: '/api/organizations/:orgId/groups',
    summary: 'Create a user group (owners and admins); names are unique in the organization regardless of case (409 otherwise)',
    tags,
    auth: 'user',
    params: params('orgId'),
    body: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1, maxLength: 255 } } },
    responses: {
      '201': { description: 'Created', schema: { type: 'object', required: ['group'], properties: { group: groupSchema } } },
      ...errors(400, 401, 403, 404, 409),
    },
  }),
  op({
    operationId: 'listGroups',
    method: 'get',
    path: '/api/organizations/:orgId/groups',
    summary: 'Groups of the organization with their member counts, oldest first (any member)',
    tags,
    auth: 'user',
    params: params('orgId'),
    responses: {
      '200': {
        description: 'Groups',
        schema: { type: 'object', required: ['groups'], properties: { groups: { type: 'array', items: groupSchema } } },
      },
      ...errors(401, 403, 404),
    },
  }),
  op({
    operationId: 'deleteGroup',
    method: 'delete',
    path: '/api/organizations/:orgId/groups/:groupId',
    summary:
      "Delete a group (owners and admins). It is removed from every agent's allowed_group_ids; an agent left with none keeps its restriction as require_org_membership true, so deleting a group never opens an agent to everyone",
    tags,
    auth: 'user',
    params: params('orgId', 'groupId'),
    responses: { '204': { description: 'Deleted' }, ...errors(401, 403, 404) },
  }),
  op({
    operationId: 'listGroupMembers',
    method: 'get',
    path: '/api/organizations/:orgId/groups/:groupId/members',
    summary: 'Members of a group, in the order they were added (any member of the organization; beyond docs/contracts.md)',
    tags,
    auth: 'user',
    params: params('orgId', 'groupId'),
    responses: {
      '200': {
        description: 'Members',
        schema: { type: 'object', required: ['members'], properties: { members: { type: 'array', items: groupMemberSchema } } },
      },
      ...errors(401, 403, 404),
    },
  }),
  op({
    operationId: 'addGroupMember',
    method: 'put',
    path: '/api/organizations/:orgId/groups/:groupId/members/:userId',
    summary: 'Add a member of the organization to the group (owners and admins; idempotent). A user outside the organization: 404',
    tags,
    auth: 'user',
    params: params('orgId', 'groupId', 'userId'),
    responses: { '204': { description: 'In the group' }, ...errors(401, 403, 404) },
  }),
  op({
    operationId: 'removeGroupMember',
    method: 'delete',
    path: '/api/organizations/:orgId/groups/:groupId/members/:userId',
    summary: 'Remove a user from the group (owners and admins; idempotent for members of the organization)',
    tags,
    auth: 'user',
    params: params('orgId', 'groupId', 'userId'),
    responses: { '204': { description: 'Not in the group' }, ...errors(401, 403, 404) },
  }),
];
