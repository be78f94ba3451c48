export interface PageRequest {
  limit: number;
  offset: number;
}

export interface Page<T> {
  items: T[];
  total: number;
}

/** Clamp client paging to sane bounds; defaults differ per endpoint (spec section 8). */
export function pageRequest(input: { limit?: number; offset?: number }, defaults: { limit: number; max: number }): PageRequest {
  const limit = Math.min(Math.max(Math.trunc(input.limit ?? defaults.limit), 1), defaults.max);
  const offset = Math.max(Math.trunc(input.offset ?? 0), 0);
  return { limit, offset };
}
