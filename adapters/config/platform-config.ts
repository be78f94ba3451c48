import type { SecurityConfig } from './security-config';

export type Role = 'start' | 'gateway' | 'api' | 'worker' | 'migrate';

export interface PlatformConfig {
  role: Role;
  gateway: {
    host: string;
    port: number;
    trustProxy: boolean;
    limits: { perIp: { limit: number; windowSeconds: number }; perPrincipal: { limit: number; windowSeconds: number } };
    /** Bearer tokens of an external issuer accepted besides the platform's own (off when absent). */
    externalJwt?: { issuer: string; audience: string; jwksUrl?: string; emailClaim: string };
  };
  api: { host: string; port: number; url?: string };
  publicUrl: string;
  appUrl: string;
  dataDir: string;
  databaseUrl?: string;
  /** Processes serving HTTP in the `start` role (HTTP_PROCESSES): this one and its replicas. */
  httpProcesses: number;
  secrets: { jwt: string; internal: string; webhook: string };
  models: { defaultChatModel?: string; syncUrl?: string };
  billing: { initialCreditsUsd: number; marginMultiplier: number };
  plans: { seats: number; agents: number; knowledgeBases: number };
  uploads: { maxBytes: number };
  /** Anonymous public chat: rate limits per anonymousId and per IP (per minute) and the attachment size limit. */
  publicChat: {
    chatPerMinute: number;
    chatPerIpPerMinute: number;
    uploadsPerMinute: number;
    uploadsPerIpPerMinute: number;
    attachmentMaxBytes: number;
    /** Thread-seconds of attachment extraction per anonymousId and per IP in a sliding window. */
    workBudget: { visitorSeconds: number; ipSeconds: number; windowSeconds: number };
    /** Presence SSE streams open at once per anonymousId / per IP, in each process. */
    presenceStreamsPerVisitor: number;
    presenceStreamsPerIp: number;
  };
  /** Google sign-in, the `google` preset of OpenID Connect sign-in. */
  google?: { clientId: string; clientSecret: string; issuerUrl: string };
  superadminEmails: string[];
  outboundAllow: string[];
  /** host[:port] of internal identity providers the OpenID Connect flow may reach (SSO_ALLOWED_HOSTS). */
  ssoAllowedHosts: string[];
  /** Extra CA certificates (PEM file) trusted for outbound HTTPS. */
  outboundCaFile?: string;
  /** Job webhooks: backoff base between attempts and the time bound of one attempt. */
  webhooks: { retryBackoffMs: number; timeoutMs: number };
  /** Background jobs: how long a worker's lease lasts between renewals (JOB_LEASE_SECONDS). */
  jobs: { leaseMs: number };
  /** Builds from a URL: worker lease, phase bound, handle-dedup window. */
  provisioning: {
    leaseMs: number;
    phaseTimeoutMs: number;
    freshForHours: number;
    turnstile: { secret: string; verifyUrl: string } | null;
  };
  /** SIGTERM: how long in-flight requests and streams may run on before the process exits (SHUTDOWN_GRACE_MS). */
  shutdownGraceMs: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /** Where the gateway and worker roles serve /metrics (METRICS_PORT); null: they do not. */
  metricsPort: number | null;
  /** OpenTelemetry traces over OTLP/HTTP; null (off, no-op) unless OTEL_EXPORTER_OTLP_ENDPOINT is set. */
  tracing: { endpoint: string; serviceName: string } | null;
  /**
   * Every validated value by key, defaults applied: the port registries read their selector and adapter keys
   * (VECTOR_INDEX, ELASTICSEARCH_URL...) and plugins their declared secrets from here.
   */
  settings: Readonly<Record<string, unknown>>;
  security: SecurityConfig;
}
