import { securityConfigSchemaProperties } from './security-config';

/**
 * The platform's own configuration keys, validated with ajv at boot. Keys are environment variable names;
 * a config file (CONFIG_FILE, JSON or YAML) may set the same keys, and the environment wins. The keys of
 * the adapters (chosen per port: VECTOR_INDEX, BLOB_STORE, QUEUE...) and the secrets plugins declare are
 * added by their declarations (app/configuration.ts merges everything into one schema).
 */
export const configSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    HOST: { type: 'string', default: '127.0.0.1', description: 'Gateway bind address' },
    PORT: { type: 'integer', minimum: 0, maximum: 65535, default: 4000, description: 'Gateway port' },
    API_HOST: { type: 'string', default: '127.0.0.1', description: 'Backend API bind address (loopback in start)' },
    API_PORT: { type: 'integer', minimum: 0, maximum: 65535, default: 4001 },
    API_URL: { type: 'string', format: 'uri', description: 'Where the gateway role finds the api role' },
    DATA_DIR: { type: 'string', default: './data' },
    DATABASE_URL: { type: 'string', pattern: '^postgres(ql)?://' },
    DATABASE_POOL_MAX: {
      type: 'integer',
      minimum: 1,
      maximum: 200,
      description: 'Connections per process (default 10 to DATABASE_URL; 4 logical connections multiplexed on embedded PGlite)',
    },
    DATABASE_QUEUE_TIMEOUT_MS: {
      type: 'integer',
      minimum: 50,
      maximum: 120000,
      default: 5000,
      description: 'How long a request waits for a database connection before answering 503 DATABASE_BUSY',
    },
    IDENTITY_CACHE_TTL_MS: {
      type: 'integer',
      minimum: 0,
      maximum: 3600000,
      default: 60000,
      description: 'Lifetime of cached identity reads (user, role, API key); writes invalidate them at once. 0 disables',
    },
    JWT_SECRET: { type: 'string', minLength: 32 },
    INTERNAL_SECRET: { type: 'string', minLength: 32 },
    WEBHOOK_SIGNING_SECRET: { type: 'string', minLength: 16 },
    DEFAULT_CHAT_MODEL: { type: 'string', pattern: '^[^/]+/.+$' },
    GRAPH_EXTRACTION_MODEL: {
      type: 'string',
      pattern: '^[^/]+/.+$',
      description:
        'Catalogue id of the chat model that extracts knowledge graphs (a knowledge base may name its own in settings.graphExtractionModel); unset: the offline extractor',
    },
    MODEL_SYNC_URL: { type: 'string', format: 'uri', description: 'OpenRouter-style models listing' },
    INITIAL_CREDITS_USD: { type: 'number', minimum: 0, default: 5 },
    BILLING_MARGIN_MULTIPLIER: { type: 'number', minimum: 1, default: 1.2 },
    PLAN_SEATS: { type: 'integer', minimum: 1, default: 5 },
    PLAN_AGENTS: { type: 'integer', minimum: 1, default: 25 },
    PLAN_KNOWLEDGE_BASES: { type: 'integer', minimum: 1, default: 25 },
    RATE_LIMIT_WINDOW_SECONDS: { type: 'integer', minimum: 1, default: 60 },
    RATE_LIMIT_PER_IP: { type: 'integer', minimum: 1, default: 3000 },
    RATE_LIMIT_PER_PRINCIPAL: { type: 'integer', minimum: 1, default: 1200 },
    TRUST_PROXY: { type: 'boolean', default: false },
    UPLOAD_MAX_BYTES: { type: 'integer', minimum: 1, default: 52428800 },
    PUBLIC_CHAT_PER_MINUTE: { type: 'integer', minimum: 1, default: 20, description: 'Public chat messages per anonymousId per minute' },
    PUBLIC_CHAT_PER_IP_PER_MINUTE: {
      type: 'integer',
      minimum: 1,
      default: 120,
      description: 'Public chat messages per client IP per minute',
    },
    PUBLIC_UPLOADS_PER_MINUTE: {
      type: 'integer',
      minimum: 1,
      default: 10,
      description: 'Public attachment uploads per anonymousId per minute',
    },
    PUBLIC_UPLOADS_PER_IP_PER_MINUTE: {
      type: 'integer',
      minimum: 1,
      default: 60,
      description: 'Public attachment uploads per client IP per minute',
    },
    PUBLIC_ATTACHMENT_MAX_BYTES: { type: 'integer', minimum: 1, default: 10485760, description: 'Largest public chat attachment' },
    GOOGLE_CLIENT_ID: { type: 'string' },
    GOOGLE_CLIENT_SECRET: { type: 'string' },
    GOOGLE_AUTH_URL: { type: 'string', format: 'uri', default: 'https://accounts.google.com/o/oauth2/v2/auth' },
    GOOGLE_TOKEN_URL: { type: 'string', format: 'uri', default: 'https://oauth2.googleapis.com/token' },
    GOOGLE_USERINFO_URL: { type: 'string', format: 'uri', default: 'https://openidconnect.googleapis.com/v1/userinfo' },
    PUBLIC_URL: { type: 'string', format: 'uri', description: 'Base URL users reach the gateway at' },
    APP_URL: { type: 'string', format: 'uri', description: 'Front-end URL that receives sign-in redirects' },
    SUPERADMIN_EMAILS: { type: 'string', default: '', description: 'Comma-separated emails that get platformRole superadmin' },
    OUTBOUND_ALLOW: { type: 'string', default: '', description: 'Test-only: comma-separated ip:port the SSRF guard may reach' },
    OUTBOUND_CA_FILE: {
      type: 'string',
      minLength: 1,
      description:
        'PEM file of extra CA certificates trusted for outbound HTTPS, added to the default roots (tests: a self-signed webhook receiver)',
    },
    WEBHOOK_RETRY_BACKOFF_MS: {
      type: 'integer',
      minimum: 0,
      maximum: 3600000,
      default: 5000,
      description: 'Base of the exponential backoff between the 3 webhook attempts (5 s, then 10 s)',
    },
    WEBHOOK_TIMEOUT_MS: { type: 'integer', minimum: 100, maximum: 60000, default: 10000, description: 'Time bound of one webhook attempt' },
    PROVISIONING_LEASE_MS: {
      type: 'integer',
      minimum: 500,
      maximum: 3600000,
      default: 60000,
      description: 'How long a worker holds a build; a build whose worker died is resumed after it expires',
    },
    PROVISIONING_PHASE_TIMEOUT_MS: {
      type: 'integer',
      minimum: 100,
      maximum: 3600000,
      default: 90000,
      description: 'Bound of one build phase; indexing past it ends ready, other phases fail',
    },
    TURNSTILE_SECRET_KEY: {
      type: 'string',
      description: 'Bot-check secret; when set, from-url needs a turnstileToken verified server-side',
    },
    TURNSTILE_VERIFY_URL: {
      type: 'string',
      format: 'uri',
      default: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
      description: 'Where bot-check tokens are verified',
    },
    PROVISIONING_FRESH_HOURS: {
      type: 'number',
      minimum: 0,
      default: 24,
      description: 'A published agent built from the same handle within this many hours answers from-url at once',
    },
    LOG_LEVEL: { enum: ['debug', 'info', 'warn', 'error', 'silent'], default: 'info' },
    ...securityConfigSchemaProperties,
  },
  allOf: [{ if: { required: ['GOOGLE_CLIENT_ID'] }, then: { required: ['GOOGLE_CLIENT_SECRET'] } }],
} as const;
