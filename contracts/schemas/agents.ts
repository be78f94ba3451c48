import type { JsonSchema } from '../operation';

// type [x, 'null'] rather than anyOf: ajv's type coercion would turn a null into '' in an anyOf branch.
const nullable = (schema: Record<string, unknown>) => ({ ...schema, type: [schema.type as string, 'null'] });
const timestamp = { type: ['string', 'null'] };

export const AGENT_STATUSES = ['draft', 'pending_review', 'approved', 'rejected', 'published'] as const;

const voiceSettings = {
  type: 'object',
  required: ['voice'],
  properties: { voice: { type: 'string', minLength: 1, maxLength: 100 }, speed: { type: 'number', minimum: 0.1, maximum: 2.0 } },
};
const multimodalConfig = {
  type: 'object',
  required: ['enabled'],
  properties: {
    enabled: { type: 'boolean' },
    supportedTypes: { type: 'array', uniqueItems: true, items: { enum: ['image', 'document', 'audio', 'video', 'text'] } },
  },
};
const tool = {
  type: 'object',
  required: ['toolDefinitionId', 'isEnabled'],
  properties: {
    toolDefinitionId: { type: 'string', minLength: 1, maxLength: 200 },
    isEnabled: { type: 'boolean' },
    config: { type: 'object' },
  },
};

/** Spec 2.3 fields; on update all optional and only supplied fields change. */
const agentFields = {
  name: { type: 'string', minLength: 1, maxLength: 255 },
  description: { type: 'string', maxLength: 2000 },
  model: { type: 'string', pattern: '^[^/\\s]+/\\S+$', maxLength: 200, description: 'provider/name; the platform default when omitted' },
  systemPrompt: nullable({ type: 'string', maxLength: 50000 }),
  knowledgeBaseIds: {
    type: 'array',
    maxItems: 100,
    items: { type: 'string', maxLength: 100 },
    description:
      'Knowledge base ids (UUIDs). Missing, of another organization or not editable by the caller: 400 invalid_knowledge_base_ids. On update the whole set is replaced; [] unlinks all.',
  },
  isDraft: {
    type: 'boolean',
    description:
      'false (the default on create): owners and admins take the agent live without review (audited); for members it submits ' +
      'the agent for review (pending_review). Needs a ready knowledge base. A rejected agent must go through submit-review.',
  },
  streamingEnabled: { type: 'boolean' },
  fileUploadsEnabled: { type: 'boolean' },
  voiceEnabled: { type: 'boolean' },
  voiceSettings: nullable(voiceSettings),
  multimodalConfig: nullable(multimodalConfig),
  tools: { type: 'array', maxItems: 100, items: tool },
  templateVariables: { type: 'array', maxItems: 200, items: { type: 'object' } },
  notes: {
    type: 'string',
    maxLength: 5000,
    description: 'Notes of the version snapshot this change creates (auto-generated when omitted)',
  },
};

export const createAgentBody: JsonSchema = {
  type: 'object',
  required: ['name', 'knowledgeBaseIds'],
  properties: { ...agentFields, isDraft: { ...agentFields.isDraft, default: false } },
};

export const updateAgentBody: JsonSchema = { type: 'object', properties: agentFields };

export const agentSchema: JsonSchema = {
  type: 'object',
  required: [
    'id',
    'name',
    'description',
    'model',
    'organizationId',
    'isDraft',
    'status',
    'streamingEnabled',
    'fileUploadsEnabled',
    'slug',
    'createdAt',
    'updatedAt',
  ],
  properties: {
    id: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    description: { type: 'string' },
    model: { type: 'string' },
    organizationId: { type: 'string', format: 'uuid' },
    systemPrompt: { type: ['string', 'null'] },
    isDraft: { type: 'boolean' },
    status: { enum: [...AGENT_STATUSES] },
    streamingEnabled: { type: 'boolean' },
    fileUploadsEnabled: { type: 'boolean' },
    voiceEnabled: { type: 'boolean' },
    voiceSettings: nullable(voiceSettings),
    multimodalConfig: nullable(multimodalConfig),
    tools: { type: 'array', items: tool },
    templateVariables: { type: 'array', items: { type: 'object' } },
    slug: { type: ['string', 'null'], description: 'Public slug once distributed' },
    distribution: nullable({
      type: 'object',
      properties: {
        require_org_membership: { type: 'boolean' },
        allowed_group_ids: { type: ['array', 'null'], items: { type: 'string' } },
      },
    }),
    reviewFeedback: { type: ['string', 'null'] },
    submittedAt: timestamp,
    reviewedAt: timestamp,
    publishedAt: timestamp,
    knowledgeBaseIds: { type: 'array', items: { type: 'string' } },
    createdBy: { type: 'string' },
    createdAt: { type: 'string' },
    updatedAt: { type: 'string' },
  },
};

export const botEnvelope = (description: string) => ({
  description,
  schema: { type: 'object', required: ['success', 'bot'], properties: { success: { const: true }, bot: agentSchema } },
});

export const agentDetailSchema: JsonSchema = {
  allOf: [
    agentSchema,
    {
      type: 'object',
      required: ['knowledgeBases', 'modelInputModalities'],
      properties: {
        knowledgeBases: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              id: { type: 'string' },
              name: { type: 'string' },
              description: { type: 'string' },
              documentCount: { type: 'integer' },
              indexedDocumentCount: { type: 'integer' },
              failedDocumentCount: { type: 'integer' },
              pendingDocumentCount: { type: 'integer' },
            },
          },
        },
        modelInputModalities: {
          type: 'array',
          items: { type: 'string' },
          description: 'Input types the model accepts (text, image, audio, video, file)',
        },
      },
    },
  ],
};

export const versionSchema: JsonSchema = {
  type: 'object',
  required: ['version', 'changes', 'notes', 'createdAt', 'createdBy'],
  properties: {
    id: { type: 'string' },
    version: { type: 'integer' },
    changes: { type: 'object' },
    notes: { type: 'string' },
    createdAt: { type: 'string' },
    createdBy: { type: ['string', 'null'] },
  },
};

const count = { type: 'integer', minimum: 0 };
export const indexingStatusSchema: JsonSchema = {
  type: 'object',
  required: ['linkedKbCount', 'totalDocuments', 'indexedDocuments', 'failedDocuments', 'pendingDocuments', 'ready'],
  properties: {
    linkedKbCount: count,
    totalDocuments: count,
    indexedDocuments: count,
    failedDocuments: count,
    pendingDocuments: count,
    ready: { type: 'boolean' },
  },
};

export const usageSchema: JsonSchema = {
  type: 'object',
  required: ['conversationCount', 'messageCount', 'totalTokens', 'estimatedCost'],
  properties: { conversationCount: count, messageCount: count, totalTokens: count, estimatedCost: { type: 'number', description: 'USD' } },
};

export const draftStatusSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'status', 'isDraft', 'isPendingReview', 'isPublished', 'reviewFeedback', 'knowledgeReady', 'availableActions'],
  properties: {
    id: { type: 'string' },
    status: { enum: [...AGENT_STATUSES] },
    isDraft: { type: 'boolean' },
    isPendingReview: { type: 'boolean' },
    isPublished: { type: 'boolean' },
    reviewFeedback: { type: ['string', 'null'] },
    submittedAt: timestamp,
    reviewedAt: timestamp,
    reviewedBy: { type: ['string', 'null'] },
    publishedAt: timestamp,
    knowledgeReady: { type: 'boolean' },
    availableActions: {
      type: 'array',
      items: { enum: ['submit-review', 'approve', 'reject', 'publish'] },
      description: 'Moves the caller may make now (knowledge readiness aside)',
    },
  },
};

export const moveResponse = {
  description: 'Moved',
  schema: {
    type: 'object',
    required: ['success', 'bot', 'status'],
    properties: { success: { const: true }, bot: agentSchema, status: { enum: [...AGENT_STATUSES] }, message: { type: 'string' } },
  },
};

export const deleteImpactSchema: JsonSchema = {
  type: 'object',
  required: ['agent', 'publicLink', 'channels', 'conversationCount'],
  properties: {
    agent: {
      type: 'object',
      required: ['id', 'name', 'status', 'organizationId'],
      properties: { id: { type: 'string' }, name: { type: 'string' }, status: { type: 'string' }, organizationId: { type: 'string' } },
    },
    publicLink: nullable({ type: 'object', required: ['slug'], properties: { slug: { type: 'string' } } }),
    channels: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          type: { enum: ['whatsapp', 'whatsapp_business'] },
          label: { type: 'string' },
          isActive: { type: 'boolean' },
        },
      },
    },
    conversationCount: count,
  },
};

const distribution = {
  type: 'object',
  required: ['require_org_membership', 'allowed_group_ids'],
  properties: {
    require_org_membership: { type: 'boolean' },
    allowed_group_ids: { type: ['array', 'null'], items: { type: 'string', format: 'uuid' } },
  },
};

export const distributionBody: JsonSchema = {
  type: 'object',
  properties: {
    slug: {
      type: 'string',
      minLength: 1,
      maxLength: 100,
      pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$',
      description: 'URL-friendly, unique platform-wide; generated from the name when omitted (or kept when already set)',
    },
    require_org_membership: { type: 'boolean' },
    allowed_group_ids: {
      type: ['array', 'null'],
      maxItems: 100,
      items: { type: 'string', format: 'uuid' },
      description: 'null or empty: every group',
    },
  },
};

export const distributionResponse: JsonSchema = {
  type: 'object',
  required: ['slug', 'url', 'distribution'],
  properties: { slug: { type: 'string' }, url: { type: 'string' }, distribution },
};

export const marketplaceAgentSchema: JsonSchema = {
  type: 'object',
  required: ['slug', 'name', 'description', 'model', 'url'],
  properties: {
    slug: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    model: { type: 'string' },
    streamingEnabled: { type: 'boolean' },
    fileUploadsEnabled: { type: 'boolean' },
    voiceEnabled: { type: 'boolean' },
    url: { type: 'string' },
    publishedAt: timestamp,
  },
};

export const grantBody: JsonSchema = {
  type: 'object',
  required: ['permissions'],
  properties: {
    permissions: {
      type: 'array',
      maxItems: 6,
      items: { enum: ['read', 'use', 'edit', 'update', 'delete', 'view_analytics'] },
      description: '[] removes the grant',
    },
  },
};

export const grantSchema: JsonSchema = {
  type: 'object',
  required: ['agentId', 'userId', 'permissions'],
  properties: { agentId: { type: 'string' }, userId: { type: 'string' }, permissions: { type: 'array', items: { type: 'string' } } },
};

export const setupBody: JsonSchema = {
  type: 'object',
  required: ['name', 'sources'],
  properties: {
    name: agentFields.name,
    description: agentFields.description,
    model: agentFields.model,
    sources: {
      type: 'array',
      minItems: 1,
      // More than 3 is refused by the use case with 400 too_many_sources; this cap only bounds the body.
      maxItems: 50,
      items: {
        type: 'object',
        required: ['url', 'sourceType'],
        properties: { url: { type: 'string', minLength: 1, maxLength: 2048 }, sourceType: { type: 'string', minLength: 1, maxLength: 50 } },
      },
    },
  },
};
