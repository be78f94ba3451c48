import { CohereClientV2 } from 'cohere-ai';

/** Connection options shared by every Cohere adapter. */
export interface CohereConnectionOptions {
  apiKey: string;
  /** Another endpoint speaking the Cohere v2 API (a proxy, a private deployment); `https://api.cohere.com` when absent. */
  baseURL?: string;
  /** Retries on 408/429/5xx, done by the SDK. Default 2. */
  maxRetries?: number;
  /** Per-request timeout. Default 60 000 ms. */
  timeoutMs?: number;
  /** Injected client (tests, shared pools); the options above are then ignored. */
  client?: CohereClientV2;
}

export const cohereConnectionSchemaProperties = {
  apiKey: { type: 'string', minLength: 1 },
  baseURL: { type: 'string', format: 'uri' },
  maxRetries: { type: 'integer', minimum: 0, maximum: 10, default: 2 },
  timeoutMs: { type: 'integer', minimum: 1, default: 60000 },
} as const;

/** The JSON schema (ajv, draft-07) of an adapter's options: the connection keys plus its own. */
export function cohereOptionsSchema<P extends Record<string, object>>(own: P) {
  return {
    type: 'object',
    properties: { ...cohereConnectionSchemaProperties, ...own },
    required: ['apiKey'],
    additionalProperties: false,
  } as const;
}

export const COHERE_PROVIDER = 'cohere';

export function cohereClient(options: CohereConnectionOptions): CohereClientV2 {
  return (
    options.client ??
    new CohereClientV2({
      token: options.apiKey,
      ...(options.baseURL ? { baseUrl: options.baseURL } : {}),
      maxRetries: options.maxRetries ?? 2,
      timeoutInSeconds: (options.timeoutMs ?? 60_000) / 1000,
    })
  );
}

/** `cohere/command-r-plus` -> `command-r-plus`. */
export function cohereModelName(modelId: string): string {
  return modelId.startsWith(`${COHERE_PROVIDER}/`) ? modelId.slice(COHERE_PROVIDER.length + 1) : modelId;
}

/** `embed-v4.0` -> `cohere/embed-v4.0`. */
export function cohereModelId(name: string): string {
  return name.startsWith(`${COHERE_PROVIDER}/`) ? name : `${COHERE_PROVIDER}/${name}`;
}
