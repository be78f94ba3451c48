import { errors, idParams, op, pageQuery } from '../operation';
import * as s from '../schemas/agents';

const tags = ['agents'];
const obj = <const P extends Record<string, unknown>, const R extends readonly (keyof P & string)[] = (keyof P & string)[]>(
  properties: P,
  required?: R,
) => ({ type: 'object', required: required ?? (Object.keys(properties) as (keyof P & string)[]), properties }) as const;
const versionParams = obj({ id: { type: 'string' }, version: { type: 'integer', minimum: 1 } });
const grantParams = obj({ id: { type: 'string' }, userId: { type: 'string' } });
const pagination = obj({ limit: { type: 'integer' }, offset: { type: 'integer' }, total: { type: 'integer' } });

export const agentOperations = [
  op({
    operationId: 'createAgent',
    method: 'post',
    path: '/api/bots',
    summary:
      'Create an agent (members and above; viewers cannot). ' +
      'isDraft false (the default) takes the agent live without review only for owners and admins (audited as agent.publish_without_review); for a member it submits the agent for review (status pending_review). Either way it needs a linked knowledge base with an indexed document (400 Knowledge base not ready). A rejected agent leaves that state only through submit-review (isDraft false on it: 409).' +
      ' The plan caps the agent count (403 plan_limit). Creates version 1.',
    tags,
    auth: 'user',
    body: s.createAgentBody,
    responses: { '201': s.botEnvelope('Created'), ...errors(400, 401, 403) },
  }),
  op({
    operationId: 'setupAgent',
    method: 'post',
    path: '/api/bots/setup',
    summary:
      'Create a knowledge base from 1-3 sources, a draft agent linked to it, and start ingestion (more than 3 sources: 400 too_many_sources)',
    tags,
    auth: 'user',
    body: s.setupBody,
    responses: {
      '201': { description: 'Created', schema: obj({ success: { const: true }, bot: s.agentSchema, knowledgeBase: { type: 'object' } }) },
      ...errors(400, 401, 403, 404),
    },
  }),
  op({
    operationId: 'listAgents',
    method: 'get',
    path: '/api/bots',
    summary: 'Agents of the active organization, newest first',
    tags,
    auth: 'user',
    query: pageQuery(50),
    responses: {
      '200': { description: 'Agents', schema: obj({ bots: { type: 'array', items: s.agentSchema }, pagination }) },
      ...errors(401, 403),
    },
  }),
  op({
    operationId: 'listMarketplaceAgents',
    method: 'get',
    path: '/marketplace/agents',
    summary: 'Distributed published agents without membership or group restrictions (no authentication; public fields only)',
    tags: ['marketplace'],
    auth: 'open',
    query: pageQuery(50),
    responses: {
      '200': { description: 'Agents', schema: obj({ agents: { type: 'array', items: s.marketplaceAgentSchema }, pagination }) },
    },
  }),
  op({
    operationId: 'getAgent',
    method: 'get',
    path: '/api/bots/:id',
    summary: 'An agent with its knowledge bases (document counts) and the input modalities of its model (permission use)',
    tags,
    auth: 'user',
    params: idParams,
    responses: { '200': { description: 'Agent', schema: s.agentDetailSchema }, ...errors(401, 403, 404) },
  }),
  op({
    operationId: 'updateAgent',
    method: 'put',
    path: '/api/bots/:id',
    summary:
      'Partial update: only supplied fields change; knowledgeBaseIds replaces the set ([] unlinks all). Creates a version snapshot (permission edit). ' +
      'isDraft false (the default) takes the agent live without review only for owners and admins (audited as agent.publish_without_review); for a member it submits the agent for review (status pending_review). Either way it needs a linked knowledge base with an indexed document (400 Knowledge base not ready). A rejected agent leaves that state only through submit-review (isDraft false on it: 409).',
    tags,
    auth: 'user',
    params: idParams,
    body: s.updateAgentBody,
    responses: {
      '200': {
        description: 'Updated agent: its fields at the top level, and again as {success, bot} like create',
        schema: {
          allOf: [
            s.agentSchema,
            { type: 'object', required: ['success', 'bot'], properties: { success: { const: true }, bot: s.agentSchema } },
          ],
        },
      },
      ...errors(400, 401, 403, 404, 409),
    },
  }),
  op({
    operationId: 'deleteAgent',
    method: 'delete',
    path: '/api/bots/:id',
    summary: 'Soft delete (conversations kept; audit agent.delete). 404 when missing or already deleted (permission delete).',
    tags,
    auth: 'user',
    params: idParams,
    responses: { '204': { description: 'Deleted' }, ...errors(401, 403, 404) },
  }),
  op({
    operationId: 'agentUsage',
    method: 'get',
    path: '/api/bots/:id/usage',
    summary: 'Conversation and message counts, total tokens and estimated cost in USD, all time (permission view_analytics)',
    tags,
    auth: 'user',
    params: idParams,
    responses: { '200': { description: 'Usage', schema: s.usageSchema }, ...errors(401, 403, 404) },
  }),
  op({
    operationId: 'listAgentVersions',
    method: 'get',
    path: '/api/bots/:id/versions',
    summary: 'Version snapshots, newest first; every update creates one (permission read)',
    tags,
    auth: 'user',
    params: idParams,
    query: pageQuery(50),
    responses: {
      '200': { description: 'Versions', schema: obj({ versions: { type: 'array', items: s.versionSchema }, total: { type: 'integer' } }) },
      ...errors(401, 403, 404),
    },
  }),
  op({
    operationId: 'revertAgentVersion',
    method: 'post',
    path: '/api/bots/:id/versions/:version/revert',
    summary:
      'Restore the configuration of a version as a new version (history is never rewritten; workflow state is not restored; permission edit)',
    tags,
    auth: 'user',
    params: versionParams,
    body: { type: 'object', properties: { notes: { type: 'string', maxLength: 5000 } } },
    responses: {
      '200': { description: 'Reverted', schema: obj({ success: { const: true }, bot: s.agentSchema, message: { type: 'string' } }) },
      ...errors(400, 401, 403, 404),
    },
  }),
  op({
    operationId: 'agentDraftStatus',
    method: 'get',
    path: '/api/bots/:id/draft-status',
    summary:
      'Publishing workflow state (draft, pending_review, approved, rejected, published), review feedback and the moves open to the caller',
    tags,
    auth: 'user',
    params: idParams,
    responses: { '200': { description: 'Status', schema: s.draftStatusSchema }, ...errors(401, 403, 404) },
  }),
  op({
    operationId: 'submitAgentForReview',
    method: 'post',
    path: '/api/bots/:id/submit-review',
    summary: 'draft or rejected -> pending_review (permission edit); other states 409',
    tags,
    auth: 'user',
    params: idParams,
    responses: { '200': s.moveResponse, ...errors(401, 403, 404, 409) },
  }),
  op({
    operationId: 'approveAgent',
    method: 'post',
    path: '/api/bots/:id/approve',
    summary: 'pending_review -> approved; owners and admins; needs a ready knowledge base (400 Knowledge base not ready)',
    tags,
    auth: 'user',
    params: idParams,
    responses: { '200': s.moveResponse, ...errors(400, 401, 403, 404, 409) },
  }),
  op({
    operationId: 'rejectAgent',
    method: 'post',
    path: '/api/bots/:id/reject',
    summary: 'pending_review -> rejected with feedback; owners and admins',
    tags,
    auth: 'user',
    params: idParams,
    body: obj({ feedback: { type: 'string', minLength: 1, maxLength: 5000 } }),
    responses: { '200': s.moveResponse, ...errors(400, 401, 403, 404, 409) },
  }),
  op({
    operationId: 'publishAgent',
    method: 'post',
    path: '/api/bots/:id/publish',
    summary:
      'approved -> published (owners and admins may also publish a draft, pending or rejected agent directly); needs a ready knowledge base',
    tags,
    auth: 'user',
    params: idParams,
    responses: { '200': s.moveResponse, ...errors(400, 401, 403, 404, 409) },
  }),
  op({
    operationId: 'agentIndexingStatus',
    method: 'get',
    path: '/api/bots/:id/indexing-status',
    summary: 'Linked knowledge bases and document counts; ready when a KB is linked and a document is indexed',
    tags,
    auth: 'user',
    params: idParams,
    responses: { '200': { description: 'Status', schema: s.indexingStatusSchema }, ...errors(401, 403, 404) },
  }),
  op({
    operationId: 'agentDeleteImpact',
    method: 'get',
    path: '/api/bots/:id/delete-impact',
    summary: 'What deleting the agent affects (permission delete); 404 when missing or deleted',
    tags,
    auth: 'user',
    params: idParams,
    responses: { '200': { description: 'Impact', schema: s.deleteImpactSchema }, ...errors(401, 403, 404) },
  }),
  op({
    operationId: 'publishAgentDistribution',
    method: 'post',
    path: '/api/bots/:id/distribution/publish',
    summary:
      'Give a published agent its public slug and distribution settings (409 when not published or the slug is taken; permission edit)',
    tags,
    auth: 'user',
    params: idParams,
    body: s.distributionBody,
    responses: { '200': { description: 'Distributed', schema: s.distributionResponse }, ...errors(400, 401, 403, 404, 409) },
  }),
  op({
    operationId: 'listAgentGrants',
    method: 'get',
    path: '/api/bots/:id/grants',
    summary: 'Explicit per-member permissions on the agent (owners and admins)',
    tags,
    auth: 'user',
    params: idParams,
    responses: {
      '200': { description: 'Grants', schema: obj({ grants: { type: 'array', items: s.grantSchema } }) },
      ...errors(401, 403, 404),
    },
  }),
  op({
    operationId: 'setAgentGrant',
    method: 'put',
    path: '/api/bots/:id/grants/:userId',
    summary:
      'Give a member explicit permissions on the agent, e.g. delete for a viewer (owners and admins); replaces the previous grant, [] removes it',
    tags,
    auth: 'user',
    params: grantParams,
    body: s.grantBody,
    responses: { '200': { description: 'Grant', schema: obj({ grant: s.grantSchema }) }, ...errors(400, 401, 403, 404) },
  }),
];
