// type [x, 'null'] rather than anyOf: ajv's type coercion would turn a null into '' in an anyOf branch.
const nullable = <const S extends { type: string }>(schema: S): Omit<S, 'type'> & { readonly type: readonly [S['type'], 'null'] } => ({
  ...schema,
  type: [schema.type, 'null'],
});
const timestamp = { type: ['string', 'null'] } as const;

export const AGENT_STATUSES = ['draft', 'pending_review', 'approved', 'rejected', 'published'] as const;

const voiceSettings = {
  type: 'object',
  required: ['voice'],
  properties: { voice: { type: 'string', minLength: 1, maxLength: 100 }, speed: { type: 'number', minimum: 0.1, maximum: 2.0 } },
} as const;
const multimodalConfig = {
  type: 'object',
  required: ['enabled'],
  properties: {
    enabled: { type: 'boolean' },
    supportedTypes: { type: 'array', uniqueItems: true, items: { enum: ['image', 'document', 'audio', 'video', 'text'] } },
  },
} as const;
const tool = {
  type: 'object',
  required: ['toolDefinitionId', 'isEnabled'],
  properties: {
    toolDefinitionId: { type: 'string', minLength: 1, maxLength: 200 },
    isEnabled: { type: 'boolean' },
    config: { type: 'object' },
  },
} as const;

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
} as const;

export const createAgentBody = {
  type: 'object',
  required: ['name', 'knowledgeBaseIds'],
  properties: { ...agentFields, isDraft: { ...agentFields.isDraft, default: false } },
} as const;

export const updateAgentBody = { type: 'object', properties: agentFields } as const;

export const agentSchema = {
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
} as const;

export const botEnvelope = (description: string) => ({
  description,
  schema: { type: 'object', required: ['success', 'bot'], properties: { success: { const: true }, bot: agentSchema } },
});

export const agentDetailSchema = {
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
} as const;

export const versionSchema = {
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
} as const;

const count = { type: 'integer', minimum: 0 } as const;
export const indexingStatusSchema = {
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
} as const;

export const usageSchema = {
  type: 'object',
  required: ['conversationCount', 'messageCount', 'totalTokens', 'estimatedCost'],
  properties: { conversationCount: count, messageCount: count, totalTokens: count, estimatedCost: { type: 'number', description: 'USD' } },
} as const;

export const draftStatusSchema = {
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
} as const;

export const moveResponse = {
  description: 'Moved',
  schema: {
    type: 'object',
    required: ['success', 'bot', 'status'],
    properties: { success: { const: true }, bot: agentSchema, status: { enum: [...AGENT_STATUSES] }, message: { type: 'string' } },
  },
} as const;

export const deleteImpactSchema = {
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
} as const;

const distribution = {
  type: 'object',
  required: ['require_org_membership', 'allowed_group_ids'],
  properties: {
    require_org_membership: { type: 'boolean' },
    allowed_group_ids: { type: ['array', 'null'], items: { type: 'string', format: 'uuid' } },
  },
} as const;

export const distributionBody = {
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
      description:
        'User groups of the organization (POST /api/organizations/:orgId/groups). When set, the public lane serves the agent only to a signed-in member of one of these groups (everyone else: 404) and the marketplace does not list it. null or empty: no group restriction',
    },
  },
} as const;

export const distributionResponse = {
  type: 'object',
  required: ['slug', 'url', 'distribution'],
  properties: { slug: { type: 'string' }, url: { type: 'string' }, distribution },
} as const;

export const marketplaceAgentSchema = {
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
} as const;

export const grantBody = {
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
} as const;

export const grantSchema = {
  type: 'object',
  required: ['agentId', 'userId', 'permissions'],
  properties: { agentId: { type: 'string' }, userId: { type: 'string' }, permissions: { type: 'array', items: { type: 'string' } } },
} as const;

export const setupBody = {
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
} as const;
