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
    HTTP_PROCESSES: {
      type: 'integer',
      minimum: 1,
      maximum: 64,
      description:
        'start role on a database server (DATABASE_URL): processes that serve HTTP on PORT, this one included (default: one per core, at most 8). The embedded database allows 1',
    },
    DATABASE_QUEUE_TIMEOUT_MS: {
      type: 'integer',
      minimum: 50,
      maximum: 120000,
      default: 5000,
      description: 'How long a request waits for a database connection before answering 503 DATABASE_BUSY',
    },
    DATABASE_THREAD_NICE: {
      type: 'integer',
      minimum: 0,
      maximum: 19,
      default: 10,
      description:
        'Embedded database: the nice value of its thread (Linux), so under CPU contention the event loop that answers requests runs first. 0: the process priority',
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
    PROVISIONING_ANALYSIS_MODEL: {
      type: 'string',
      pattern: '^[^/]+/.+$',
      description:
        'Catalogue id of the chat model that writes a provisioned agent (name, description, prompt, starter questions) when the build names no model; unset: offline analysis',
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
    PUBLIC_WORK_SECONDS_PER_VISITOR: {
      type: 'integer',
      minimum: 1,
      default: 30,
      description: 'Thread-seconds of attachment extraction one anonymousId may use per PUBLIC_WORK_WINDOW_SECONDS (then 429)',
    },
    PUBLIC_WORK_SECONDS_PER_IP: {
      type: 'integer',
      minimum: 1,
      default: 120,
      description: 'Thread-seconds of attachment extraction one client IP may use per PUBLIC_WORK_WINDOW_SECONDS (then 429)',
    },
    PUBLIC_WORK_WINDOW_SECONDS: {
      type: 'integer',
      minimum: 10,
      default: 600,
      description: 'Sliding window of the public work budgets',
    },
    PUBLIC_PRESENCE_STREAMS_PER_VISITOR: {
      type: 'integer',
      minimum: 1,
      default: 5,
      description: 'Presence SSE streams open at once per anonymousId, per process (429 above)',
    },
    PUBLIC_PRESENCE_STREAMS_PER_IP: {
      type: 'integer',
      minimum: 1,
      default: 50,
      description: 'Presence SSE streams open at once per client IP, per process (429 above)',
    },
    EMAIL_SMTP_PORT: {
      type: 'integer',
      minimum: 0,
      maximum: 65535,
      description: 'Inbound SMTP listener for email channels (api and start roles); off when unset',
    },
    EMAIL_SMTP_HOST: { type: 'string', default: '127.0.0.1', description: 'Inbound SMTP bind address (0.0.0.0 to take mail from outside)' },
    EMAIL_SMTP_MAX_BYTES: { type: 'integer', minimum: 1024, default: 10485760, description: 'Largest inbound email accepted (552 above)' },
    EMAIL_SMTP_TIMEOUT_MS: {
      type: 'integer',
      minimum: 1000,
      maximum: 600000,
      default: 30000,
      description: 'Longest an inbound email may take to arrive and be parsed (idle socket and parse limit)',
    },
    EMAIL_SMTP_TLS_KEY_FILE: { type: 'string', minLength: 1, description: 'PEM private key file: the SMTP listener offers STARTTLS' },
    EMAIL_SMTP_TLS_CERT_FILE: { type: 'string', minLength: 1, description: 'PEM certificate (chain) file for STARTTLS' },
    EMAIL_SMTP_REQUIRE_TLS: {
      type: 'boolean',
      default: false,
      description: 'Refuse MAIL FROM (530) until the client has issued STARTTLS',
    },
    EMAIL_SMTP_DOMAIN: {
      type: 'string',
      pattern: '^[A-Za-z0-9.-]+$',
      description: 'Allowed recipient domain of the SMTP listener; other domains are refused with 550',
    },
    EMAIL_INBOUND_DOMAIN: {
      type: 'string',
      pattern: '^[A-Za-z0-9-]+(?:\\.[A-Za-z0-9-]+)+$',
      description:
        "The platform's inbound email domain: an email channel without an address gets a generated one there; chosen addresses elsewhere are verified by a mailed code",
    },
    GOOGLE_CLIENT_ID: { type: 'string', description: 'Enables Google sign-in at /api/auth/google (OpenID Connect, Google preset)' },
    GOOGLE_CLIENT_SECRET: { type: 'string' },
    GOOGLE_ISSUER_URL: {
      type: 'string',
      format: 'uri',
      default: 'https://accounts.google.com',
      description: 'Issuer whose discovery document Google sign-in uses (tests: a local provider)',
    },
    SSO_ALLOWED_HOSTS: {
      type: 'string',
      default: '',
      description:
        'Comma-separated host[:port] (no port: 443/80) of internal identity providers (e.g. a Keycloak on the private network) ' +
        'that OpenID Connect sign-in may reach although the SSRF guard refuses internal addresses; other outbound requests stay refused',
    },
    EXTERNAL_JWT_ISSUER: {
      type: 'string',
      format: 'uri',
      description: 'Off when unset. Issuer whose RS256/ES256 bearer tokens the gateway also accepts, mapped to a platform user by email',
    },
    EXTERNAL_JWT_AUDIENCE: { type: 'string', minLength: 1, description: 'Audience those tokens must carry (required with the issuer)' },
    EXTERNAL_JWT_JWKS_URL: { type: 'string', format: 'uri', description: "The issuer's JWKS; default: jwks_uri of its discovery document" },
    EXTERNAL_JWT_EMAIL_CLAIM: {
      type: 'string',
      minLength: 1,
      default: 'email',
      description: 'Claim holding the email of the platform user',
    },
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
    CHANNEL_RETRY_BACKOFF_MS: {
      type: 'integer',
      minimum: 0,
      maximum: 3600000,
      default: 5000,
      description: 'Base of the exponential backoff between the 5 attempts of a channel reply (5 s, 10 s, 20 s, 40 s)',
    },
    JOB_LEASE_SECONDS: {
      type: 'integer',
      minimum: 1,
      maximum: 86400,
      default: 60,
      description:
        'How long a worker holds a job between renewals; a job whose worker died, or whose queue message was lost, is taken up again after it',
    },
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
    PROVISIONING_MEDIA_MAX_BYTES: {
      type: 'integer',
      minimum: 1,
      default: 26214400,
      description: 'Largest media file of a caption-less video or reel a build fetches to transcribe (skipped with a warning when larger)',
    },
    PROVISIONING_MEDIA_TIMEOUT_MS: {
      type: 'integer',
      minimum: 100,
      maximum: 3600000,
      default: 60000,
      description: 'Bound of one media fetch and of one transcription during a build',
    },
    PROVISIONING_PREVIEW_TRANSCRIPTIONS: {
      type: 'integer',
      minimum: 0,
      maximum: 8,
      default: 3,
      description: 'Media transcribed at most in a preview build (full builds: 20)',
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
    SHUTDOWN_GRACE_MS: {
      type: 'integer',
      minimum: 0,
      maximum: 3600000,
      default: 25000,
      description:
        'On SIGTERM/SIGINT: how long in-flight requests and streams may run on (readiness 503, answers with Connection: close) before the rest is cut and the process exits',
    },
    LOG_LEVEL: { enum: ['debug', 'info', 'warn', 'error', 'silent'], default: 'info' },
    METRICS_PORT: {
      type: 'integer',
      minimum: 1,
      maximum: 65535,
      description: 'Gateway and worker roles: serve /metrics on this port (0.0.0.0); the api serves it on its own port',
    },
    OTEL_EXPORTER_OTLP_ENDPOINT: {
      type: 'string',
      format: 'uri',
      pattern: '^https?://',
      description: 'OTLP/HTTP collector base URL (spans go to <url>/v1/traces as JSON); tracing is off when unset',
    },
    OTEL_SERVICE_NAME: { type: 'string', minLength: 1, default: 'agent-platform', description: 'service.name of exported spans' },
    ...securityConfigSchemaProperties,
  },
  allOf: [
    { if: { required: ['GOOGLE_CLIENT_ID'] }, then: { required: ['GOOGLE_CLIENT_SECRET'] } },
    { if: { required: ['EXTERNAL_JWT_ISSUER'] }, then: { required: ['EXTERNAL_JWT_AUDIENCE'] } },
    { if: { required: ['EMAIL_SMTP_TLS_KEY_FILE'] }, then: { required: ['EMAIL_SMTP_TLS_CERT_FILE'] } },
    { if: { required: ['EMAIL_SMTP_TLS_CERT_FILE'] }, then: { required: ['EMAIL_SMTP_TLS_KEY_FILE'] } },
    {
      if: { properties: { EMAIL_SMTP_REQUIRE_TLS: { type: 'boolean', const: true } }, required: ['EMAIL_SMTP_REQUIRE_TLS'] },
      then: { required: ['EMAIL_SMTP_TLS_KEY_FILE'] },
    },
  ],
} as const;
