/**
 * One operation = one endpoint. The backend mounts handlers by operationId and validates requests with
 * these schemas; the OpenAPI document is generated from the same objects. One source, not two.
 */
export type JsonSchema = Record<string, unknown>;

export type AuthLane =
  /** No credentials (register, login, docs). */
  | 'open'
  /** JWT user. */
  | 'user'
  /** Anonymous visitor, optionally with a verified user. */
  | 'public'
  /** Organization API key. */
  | 'apiKey';

export interface Operation {
  operationId: string;
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Express-style path (`/api/bots/:id`). */
  path: string;
  summary: string;
  /** Longer explanation for the OpenAPI document (rules, errors, examples in prose); the summary when absent. */
  description?: string;
  tags: string[];
  auth: AuthLane;
  /** API-key scope needed on the apiKey lane. */
  scope?: string;
  params?: JsonSchema;
  query?: JsonSchema;
  /** JSON body schema; `multipart` for file uploads (validated by the handler). */
  body?: JsonSchema | 'multipart';
  /** `example`: a sample body for the document (JSON examples are otherwise generated from the schema). */
  responses: Record<string, { description: string; schema?: JsonSchema; contentType?: string; example?: unknown }>;
}

/** Keeps the operation's literal type (its schemas included), so handlers are typed from the schemas. */
export const op = <const O extends Operation>(o: O): O => o;

export const uuid = { type: 'string', format: 'uuid' } as const;
export const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } as const;
export const pageQuery = (defaultLimit: number, max = 200) =>
  ({
    type: 'object',
    properties: {
      limit: { type: 'integer', minimum: 1, maximum: max, default: defaultLimit },
      // Past a 32-bit integer no page exists, and the database refuses it: a 400, not a 500.
      offset: { type: 'integer', minimum: 0, maximum: 2_147_483_647, default: 0 },
    },
  }) as const;
export const errorSchema: JsonSchema = {
  type: 'object',
  required: ['error', 'message'],
  properties: {
    error: { type: 'string' },
    message: { type: 'string' },
    code: { type: 'string' },
    details: {},
  },
};
export const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [String(s), { description: 'Error', schema: errorSchema }]));
