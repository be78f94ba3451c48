import type { SecurityConfig } from './security-config';

export type Role = 'start' | 'gateway' | 'api' | 'worker' | 'migrate';

export interface PlatformConfig {
  role: Role;
  gateway: {
    host: string;
    port: number;
    trustProxy: boolean;
    limits: { perIp: { limit: number; windowSeconds: number }; perPrincipal: { limit: number; windowSeconds: number } };
  };
  api: { host: string; port: number; url?: string };
  publicUrl: string;
  appUrl: string;
  dataDir: string;
  databaseUrl?: string;
  secrets: { jwt: string; internal: string; webhook: string };
  redisUrl?: string;
  rabbitmq?: { url: string; prefix: string };
  blob:
    | { driver: 'local' }
    | {
        driver: 's3';
        bucket: string;
        region: string;
        endpoint?: string;
        forcePathStyle: boolean;
        accessKeyId?: string;
        secretAccessKey?: string;
      };
  vectorIndex: { driver: 'pgvector' } | { driver: 'elasticsearch'; url: string };
  providers: { openai?: { apiKey: string; baseURL?: string }; cohere?: { apiKey: string; baseURL?: string } };
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
  };
  google?: { clientId: string; clientSecret: string; authUrl: string; tokenUrl: string; userInfoUrl: string };
  superadminEmails: string[];
  outboundAllow: string[];
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  security: SecurityConfig;
}
