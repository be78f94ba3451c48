import createClient, { type Client } from 'openapi-fetch';

import { errorFrom, type Http } from './http';
import type { paths } from './schema';

export type { components, operations, paths } from './schema';

/**
 * The generated client: every path, parameter, body and response of the OpenAPI document, typed from
 * sdk/schema.d.ts (npm run generate:sdk). Requests go through the session's fetch (bearer token, one refresh
 * and replay on 401); calls answer `{data, error, response}` as openapi-fetch does.
 */
export type PlatformApi = Client<paths>;

export const createPlatformApi = (http: Http): PlatformApi => createClient<paths>({ baseUrl: http.baseUrl, fetch: http.fetch });

/** The data of a successful call; a failed one throws PlatformError with the platform's `{error, message, code}`. */
export async function unwrap<R extends { data?: unknown; error?: unknown; response: Response }>(
  call: Promise<R>,
): Promise<Exclude<R['data'], undefined>> {
  const { data, error, response } = await call;
  if (!response.ok) throw errorFrom(response, error);
  return data as Exclude<R['data'], undefined>;
}
