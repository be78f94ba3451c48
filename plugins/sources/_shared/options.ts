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

/** A plugin's options schema; the registry merges in the options every source accepts (COMMON_SOURCE_OPTIONS). */
export const objectSchema = (properties: Record<string, unknown>) => ({ type: 'object', properties });

export const num = (options: Record<string, unknown>, key: string, fallback: number) =>
  typeof options[key] === 'number' ? (options[key] as number) : fallback;
