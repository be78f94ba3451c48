const id = { type: 'string', format: 'uuid' } as const;
const time = { type: 'string', format: 'date-time' } as const;
const nullableTime = { type: ['string', 'null'], format: 'date-time' } as const;

export const visibility = { enum: ['private', 'shared', 'public'] } as const;

export const kbSettingsSchema = {
  type: 'object',
  description:
    'Open object. `embedding` {model, dimensions}: model is always the configured embedder (`local/hash-embed-v1` offline, 1024 dimensions by default; ' +
    'a configured remote provider defaults to 3072); dimensions are fixed once documents exist. `chunking` {size 1000, overlap 200} in characters. Other keys are kept.',
  properties: {
    embedding: { type: 'object', properties: { model: { type: 'string' }, dimensions: { type: 'integer', minimum: 8, maximum: 4000 } } },
    chunking: {
      type: 'object',
      properties: { size: { type: 'integer', minimum: 100, maximum: 8000 }, overlap: { type: 'integer', minimum: 0 } },
    },
  },
} as const;

export const knowledgeBaseSchema = {
  type: 'object',
  required: ['id', 'name', 'description', 'organizationId', 'visibility', 'settings', 'createdAt', 'updatedAt'],
  properties: {
    id,
    name: { type: 'string' },
    description: { type: 'string' },
    organizationId: id,
    visibility,
    settings: kbSettingsSchema,
    createdAt: time,
    updatedAt: time,
  },
} as const;

export const createKbBody = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255 },
    description: { type: 'string', maxLength: 10000 },
    visibility: { ...visibility, default: 'private' },
    settings: kbSettingsSchema,
  },
} as const;

export const updateKbBody = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255 },
    description: { type: 'string', maxLength: 10000 },
    visibility,
    settings: kbSettingsSchema,
  },
} as const;

export const linkBody = {
  type: 'object',
  properties: {
    permissions: { type: 'object', description: 'Free-form flags of what the agent may do with the knowledge base, e.g. {"read": true}' },
    priority: { type: 'integer', minimum: -1000, maximum: 1000, default: 0 },
  },
} as const;

const failedSource = {
  type: 'object',
  required: ['sourceId', 'sourceUrl', 'lastSyncError'],
  properties: { sourceId: id, sourceUrl: { type: 'string' }, lastSyncError: { type: 'string' } },
} as const;

export const linkedKbSchema = {
  type: 'object',
  required: [...knowledgeBaseSchema.required, 'permissions', 'priority', 'linked_at', 'syncHealth', 'failedSourceCount', 'failedSources'],
  properties: {
    ...(knowledgeBaseSchema.properties as object),
    permissions: { type: 'object' },
    priority: { type: 'integer' },
    linked_at: time,
    documentCount: { type: 'integer' },
    sourceCount: { type: 'integer' },
    syncHealth: {
      enum: ['healthy', 'degraded', 'failing'],
      description: 'healthy: no source failing (or none); degraded: some; failing: all',
    },
    failedSourceCount: { type: 'integer' },
    failedSources: { type: 'array', items: failedSource },
  },
} as const;

export const deleteImpactSchema = {
  type: 'object',
  required: ['knowledgeBases', 'truncated'],
  properties: {
    truncated: { type: 'boolean', description: 'true when the agent has more than 100 knowledge bases (only 100 listed)' },
    knowledgeBases: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'name', 'documentCount', 'sourceCount', 'otherAgentCount', 'otherAgents', 'canDelete', 'cannotDeleteReason'],
        properties: {
          id,
          name: { type: 'string' },
          documentCount: { type: 'integer' },
          sourceCount: { type: 'integer' },
          otherAgentCount: { type: 'integer' },
          otherAgents: { type: 'array', maxItems: 5, items: { type: 'object', properties: { id, name: { type: 'string' } } } },
          canDelete: { type: 'boolean' },
          cannotDeleteReason: { type: ['string', 'null'] },
        },
      },
    },
  },
} as const;

export const documentSchema = {
  type: 'object',
  required: ['id', 'knowledgeBaseId', 'title', 'mimeType', 'fileSizeBytes', 'processingStatus', 'error', 'chunkCount', 'createdAt'],
  properties: {
    id,
    knowledgeBaseId: id,
    title: { type: 'string', description: 'The file name' },
    mimeType: { type: 'string' },
    fileSizeBytes: { type: 'integer' },
    processingStatus: { enum: ['pending', 'processing', 'completed', 'failed'] },
    error: { type: ['string', 'null'], description: 'Why processing failed (e.g. a capability that is not configured); null otherwise' },
    chunkCount: { type: 'integer' },
    sourceId: { type: ['string', 'null'] },
    createdAt: time,
    updatedAt: time,
    processedAt: nullableTime,
    graphStatus: {
      type: ['string', 'null'],
      enum: ['completed', 'partial', 'failed', null],
      description: 'Graph extraction status (null before extraction or when disabled)',
    },
  },
} as const;

export const extractTextSchema = {
  type: 'object',
  required: ['text', 'title', 'mimeType', 'images', 'metadata', 'characterCount'],
  properties: {
    text: { type: 'string' },
    title: { type: 'string' },
    mimeType: { type: 'string' },
    kind: { type: 'string' },
    images: {
      type: 'array',
      items: { type: 'object', properties: { ref: { type: 'string' }, mimeType: { type: 'string' }, description: { type: 'string' } } },
    },
    metadata: { type: 'object' },
    characterCount: { type: 'integer' },
  },
} as const;

export const searchBody = {
  type: 'object',
  required: ['knowledgeBaseIds'],
  properties: {
    knowledgeBaseIds: { type: 'array', minItems: 1, maxItems: 50, items: id },
    query: { type: 'string', maxLength: 10000 },
    images: {
      type: 'array',
      maxItems: 5,
      description: 'Described by the configured vision model and searched as text; 400 when none is configured',
      items: {
        type: 'object',
        required: ['base64', 'mimeType'],
        properties: { base64: { type: 'string', minLength: 1 }, mimeType: { type: 'string', pattern: '^image/' } },
      },
    },
    files: {
      type: 'array',
      maxItems: 5,
      description: "Each file's text `content` is searched as a query of its own (first 4000 characters)",
      items: { type: 'object', required: ['content'], properties: { content: { type: 'string' }, mimeType: { type: 'string' } } },
    },
    topK: { type: 'integer', minimum: 1, maximum: 20, description: 'Results per knowledge base (default 3)' },
  },
} as const;

export const searchQuery = {
  type: 'object',
  properties: {
    source: { enum: ['manual', 'agent_rag'], default: 'manual' },
    agentId: id,
    conversationId: id,
    messageId: id,
  },
} as const;

export const searchResultSchema = {
  type: 'object',
  required: ['content', 'score', 'knowledgeBaseId', 'metadata', 'discoveryMethods'],
  properties: {
    content: { type: 'string' },
    score: { type: 'number', minimum: 0, maximum: 1 },
    knowledgeBaseId: id,
    metadata: {
      type: 'object',
      required: ['documentId', 'documentTitle', 'chunkIndex', 'embeddingType'],
      properties: {
        documentId: id,
        documentTitle: { type: 'string' },
        chunkIndex: { type: 'integer' },
        embeddingType: { enum: ['text', 'image', 'video', 'audio', 'transcript'] },
      },
    },
    discoveryMethods: { type: 'array', items: { enum: ['semantic', 'image', 'graph'] } },
    relationshipPath: { type: 'array', description: 'Present only for results found through the knowledge graph' },
  },
} as const;

export const searchLogEntrySchema = {
  type: 'object',
  properties: {
    id,
    knowledgeBaseId: id,
    query: { type: 'string' },
    source: { enum: ['manual', 'agent_rag'] },
    userId: { type: ['string', 'null'] },
    agentId: { type: ['string', 'null'] },
    conversationId: { type: ['string', 'null'] },
    messageId: { type: ['string', 'null'] },
    resultCount: { type: 'integer', description: 'Results of this knowledge base in the response' },
    topScore: { type: ['number', 'null'] },
    durationMs: { type: 'integer' },
    createdAt: time,
  },
} as const;

export const mapSchema = {
  type: 'object',
  required: ['knowledgeBaseId', 'knowledgeBaseName', 'total', 'documents'],
  properties: {
    knowledgeBaseId: id,
    knowledgeBaseName: { type: 'string' },
    total: { type: 'integer' },
    documents: {
      type: 'array',
      items: {
        type: 'object',
        required: ['documentId', 'title', 'summary', 'topics', 'chunkCount'],
        properties: {
          documentId: id,
          title: { type: 'string' },
          summary: { type: ['string', 'null'] },
          topics: { type: 'array', items: { type: 'string' } },
          chunkCount: { type: 'integer' },
        },
      },
    },
  },
} as const;
