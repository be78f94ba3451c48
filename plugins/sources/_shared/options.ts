/** JSON schema pieces for source options (spec 4.7); plugins combine those they use. */
export const maxItems = (fallback: number, max = 1000) => ({
  type: 'integer',
  minimum: 1,
  maximum: max,
  default: fallback,
  description: 'Most items read per sync',
});
export const maxPages = (fallback: number, max = 200) => ({
  type: 'integer',
  minimum: 1,
  maximum: max,
  default: fallback,
  description: 'Most pages read per sync',
});
export const crawlDepth = (fallback: number, max = 3) => ({
  type: 'integer',
  minimum: 0,
  maximum: max,
  default: fallback,
  description: 'Link levels followed from the start page (0 = single page)',
});

/** Accepted by every source and kept on it; text sources do not use them yet. */
export const mediaOptions = {
  mediaEmbeddingStrategy: { enum: ['native', 'transcription'] },
  visualEntityExtraction: { type: 'boolean' },
};

export const objectSchema = (properties: Record<string, unknown>) => ({
  type: 'object',
  additionalProperties: true,
  properties: { ...properties, ...mediaOptions },
});

export const num = (options: Record<string, unknown>, key: string, fallback: number) =>
  typeof options[key] === 'number' ? (options[key] as number) : fallback;
