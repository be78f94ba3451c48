import { errors, op } from '../operation';
import * as s from '../schemas/prompts';

const tags = ['prompt-configuration'];
const obj = <const P extends Record<string, unknown>, const R extends readonly (keyof P & string)[] = (keyof P & string)[]>(
  properties: P,
  required?: R,
) => ({ type: 'object', required: required ?? (Object.keys(properties) as (keyof P & string)[]), properties }) as const;
const id = { type: 'string' };
const typeParams = obj({ id, type: { type: 'string', minLength: 1, maxLength: 100 } });

export const promptOperations = [
  op({
    operationId: 'savePromptConfigVersion',
    method: 'post',
    path: '/api/bots/:id/prompt-config-versions',
    summary:
      'Write sections to the draft and capture the whole customised draft as a new immutable version vX.Y (minor: vM.(m+1), major: v(M+1).0, first: v1.0); live does not move (permission update; audit prompt_config.save). Errors: UNKNOWN_PROMPT_TYPE, INSTANCED_TYPE_NOT_ADDRESSED, INSTANCE_NOT_FOUND, INVALID_VARIABLE_NAMESPACE, DUPLICATE_SECTION; nothing is saved on error.',
    tags,
    auth: 'user',
    params: obj({ id }),
    body: s.saveBody,
    responses: { '201': { description: 'Saved', schema: s.saveResponse }, ...errors(400, 401, 403, 404) },
  }),
  op({
    operationId: 'listPromptConfigVersions',
    method: 'get',
    path: '/api/bots/:id/prompt-config-versions',
    summary: 'Config versions, newest first, and the live descriptor (null when never published; permission read)',
    tags,
    auth: 'user',
    params: obj({ id }),
    query: { type: 'object', properties: { limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 } } },
    responses: {
      '200': {
        description: 'Versions',
        schema: obj({ versions: { type: 'array', items: s.versionItemSchema }, total: { type: 'integer' }, live: s.liveSchema }, [
          'versions',
          'live',
        ]),
      },
      ...errors(401, 403, 404),
    },
  }),
  op({
    operationId: 'getPromptConfigVersion',
    method: 'get',
    path: '/api/bots/:id/prompt-config-versions/:versionId',
    summary: 'One config version of this agent and its items (404 for a version of another agent)',
    tags,
    auth: 'user',
    params: obj({ id, versionId: id }),
    responses: {
      '200': { description: 'Version', schema: obj({ version: s.versionItemSchema, items: { type: 'array', items: s.sectionSchema } }) },
      ...errors(401, 403, 404),
    },
  }),
  op({
    operationId: 'publishPromptConfig',
    method: 'put',
    path: '/api/bots/:id/prompt-live',
    summary:
      'Move the live pointer to a version of this agent (the newest when versionId is omitted); nothing else changes. A version of another agent: 404, nothing published (permission update; audit prompt_config.publish).',
    tags,
    auth: 'user',
    params: obj({ id }),
    body: { type: 'object', properties: { versionId: { type: 'string', maxLength: 100 } } },
    responses: { '200': { description: 'Published', schema: s.publishResponse }, ...errors(400, 401, 403, 404) },
  }),
  op({
    operationId: 'listPromptSections',
    method: 'get',
    path: '/api/bots/:id/prompt-sections',
    summary: 'Every section with its draft text, isCustomised and isUnpublished, plus draftDiffersFromNewest (permission read)',
    tags,
    auth: 'user',
    params: obj({ id }),
    responses: { '200': { description: 'Sections', schema: s.draftSectionsResponse }, ...errors(401, 403, 404) },
  }),
  op({
    operationId: 'resetPromptSection',
    method: 'post',
    path: '/api/bots/:id/prompt-sections/:type/reset',
    summary: "Drop the section's draft override (query instanceRef for instanced types); nothing live moves (permission update)",
    tags,
    auth: 'user',
    params: typeParams,
    query: { type: 'object', properties: { instanceRef: { type: 'string', maxLength: 200 } } },
    responses: {
      '200': {
        description: 'Reset',
        schema: obj({ promptType: { type: 'string' }, instanceRef: { type: ['string', 'null'] }, removed: { type: 'boolean' } }),
      },
      ...errors(400, 401, 403, 404),
    },
  }),
  op({
    operationId: 'writePromptConfigSection',
    method: 'put',
    path: '/api/bots/:id/prompt-configs/:type',
    summary: 'Legacy single-section draft write: no version is captured and nothing is published (permission update)',
    tags,
    auth: 'user',
    params: typeParams,
    body: {
      type: 'object',
      properties: {
        instanceRef: { type: ['string', 'null'], maxLength: 200 },
        mode: { enum: ['fixed', 'generated'], default: 'fixed' },
        content: { type: ['string', 'null'], maxLength: 50000 },
        prompt: { type: ['string', 'null'], maxLength: 50000 },
      },
    },
    responses: {
      '200': { description: 'Draft section written', schema: obj({ section: s.sectionSchema, published: { const: false } }) },
      ...errors(400, 401, 403, 404),
    },
  }),
];
