/** Known prompt types are checked by the use case (UNKNOWN_PROMPT_TYPE), not by the schema. */
const text = (max: number) => ({ type: ['string', 'null'], maxLength: max }) as const;

export const sectionInput = {
  type: 'object',
  required: ['promptType', 'mode'],
  properties: {
    promptType: {
      type: 'string',
      minLength: 1,
      maxLength: 100,
      description: 'system, guardrail, welcome, persona, response_style, fallback, custom_tool_instructions',
    },
    instanceRef: {
      type: ['string', 'null'],
      maxLength: 200,
      description: 'toolDefinitionId of an enabled tool, for custom_tool_instructions only',
    },
    mode: { enum: ['fixed', 'generated'] },
    content: text(50000),
    prompt: text(50000),
  },
} as const;

export const saveBody = {
  type: 'object',
  required: ['sections'],
  properties: {
    sections: { type: 'array', maxItems: 200, items: sectionInput },
    bumpType: { enum: ['major', 'minor'], default: 'minor' },
    label: { type: ['string', 'null'], maxLength: 5000 },
  },
} as const;

const versionRef = {
  type: 'object',
  required: ['id', 'versionMajor', 'versionMinor'],
  properties: { id: { type: 'string' }, versionMajor: { type: 'integer' }, versionMinor: { type: 'integer' } },
} as const;

export const liveSchema = {
  type: ['object', 'null'],
  required: versionRef.required,
  properties: {
    ...versionRef.properties,
    publishedAt: { type: 'string' },
    publishedBy: { type: ['string', 'null'] },
    publishedByName: { type: ['string', 'null'] },
  },
} as const;

export const versionItemSchema = {
  type: 'object',
  required: ['id', 'versionMajor', 'versionMinor', 'label', 'createdAt', 'createdBy', 'authorName', 'isLive', 'isNewest'],
  properties: {
    ...versionRef.properties,
    label: { type: ['string', 'null'] },
    createdAt: { type: 'string' },
    createdBy: { type: ['string', 'null'], description: 'null for system-made versions and deleted authors' },
    authorName: { type: ['string', 'null'] },
    sectionCount: { type: 'integer' },
    isLive: { type: 'boolean' },
    isNewest: { type: 'boolean' },
  },
} as const;

export const sectionSchema = {
  type: 'object',
  required: ['promptType', 'instanceRef', 'mode', 'content', 'prompt'],
  properties: {
    promptType: { type: 'string' },
    instanceRef: { type: ['string', 'null'] },
    mode: { enum: ['fixed', 'generated'] },
    content: { type: ['string', 'null'] },
    prompt: { type: ['string', 'null'] },
  },
} as const;

export const saveResponse = {
  type: 'object',
  required: ['version', 'published'],
  properties: {
    version: {
      ...versionRef,
      required: [...versionRef.required, 'sectionCount'],
      properties: { ...versionRef.properties, sectionCount: { type: 'integer' } },
    },
    published: { const: false },
  },
} as const;

export const publishResponse = {
  type: 'object',
  required: ['live', 'previous'],
  properties: { live: versionRef, previous: { ...versionRef, type: ['object', 'null'] } },
} as const;

export const draftSectionsResponse = {
  type: 'object',
  required: ['sections', 'draftDiffersFromNewest'],
  properties: {
    sections: {
      type: 'array',
      items: {
        ...sectionSchema,
        properties: {
          ...(sectionSchema.properties as object),
          isCustomised: { type: 'boolean', description: 'the draft overrides the platform default' },
          isUnpublished: { type: 'boolean', description: 'the draft differs from what live visitors get' },
          updatedAt: { type: ['string', 'null'] },
        },
      },
    },
    draftDiffersFromNewest: { type: 'boolean' },
    live: liveSchema,
    newest: { ...versionRef, type: ['object', 'null'] },
  },
} as const;
