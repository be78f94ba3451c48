import OpenAI from 'openai';

/** Connection options shared by every OpenAI adapter. */
export interface OpenAiConnectionOptions {
  apiKey: string;
  /** An OpenAI-compatible endpoint (e.g. `http://localhost:11434/v1`); the official API when absent. */
  baseURL?: string;
  /**
   * Provider part of the catalogue ids this connection serves (`openai/gpt-4o-mini`). Default `openai`.
   * Set it for a compatible endpoint listed under its own name (e.g. `groq`).
   */
  provider?: string;
  /** Retries on 408/409/429/5xx and network errors, done by the SDK. Default 2. */
  maxRetries?: number;
  /** Per-request timeout. Default 60 000 ms. */
  timeoutMs?: number;
  /** Injected client (tests, shared pools); the options above are then ignored except `provider` and `baseURL`. */
  client?: OpenAI;
}

export const openAiConnectionSchemaProperties = {
  apiKey: { type: 'string', minLength: 1 },
  baseURL: { type: 'string', format: 'uri' },
  provider: { type: 'string', pattern: '^[a-z0-9][a-z0-9._-]*$', default: 'openai' },
  maxRetries: { type: 'integer', minimum: 0, maximum: 10, default: 2 },
  timeoutMs: { type: 'integer', minimum: 1, default: 60000 },
} as const;

/** Builds the JSON schema (ajv, draft-07) of an adapter's options from the connection keys plus its own. */
export function openAiOptionsSchema<P extends Record<string, object>>(own: P) {
  return {
    type: 'object',
    properties: { ...openAiConnectionSchemaProperties, ...own },
    required: ['apiKey'],
    additionalProperties: false,
  } as const;
}

export interface OpenAiConnection {
  client: OpenAI;
  provider: string;
  /** True for a configured compatible endpoint. */
  compatible: boolean;
}

export function connect(options: OpenAiConnectionOptions): OpenAiConnection {
  const client =
    options.client ??
    new OpenAI({
      apiKey: options.apiKey,
      baseURL: options.baseURL,
      maxRetries: options.maxRetries ?? 2,
      timeout: options.timeoutMs ?? 60_000,
    });
  return { client, provider: options.provider ?? 'openai', compatible: Boolean(options.baseURL) };
}

/** `openai/gpt-4o-mini` -> `gpt-4o-mini`; ids of other providers (on a compatible endpoint) are sent as they are. */
export function providerModelName(connection: OpenAiConnection, modelId: string): string {
  const prefix = `${connection.provider}/`;
  return modelId.startsWith(prefix) ? modelId.slice(prefix.length) : modelId;
}

/** `text-embedding-3-small` -> `openai/text-embedding-3-small` (ids already in that form are kept). */
export function catalogueModelId(connection: OpenAiConnection, name: string): string {
  return name.startsWith(`${connection.provider}/`) ? name : `${connection.provider}/${name}`;
}
