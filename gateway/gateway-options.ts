import type { IncomingMessage, ServerResponse } from 'node:http';

import type { AccessTokenClaims, ApiKeyPrincipal, TokenSigner } from '../core/identity/token-claims';
import type { Clock } from '../core/ports/clock';
import type { RateLimitStore } from '../core/ports/rate-limit-store';
import type { Upstream } from './upstream-forwarder';

export interface RateLimitRule {
  limit: number;
  windowSeconds: number;
}

export interface GatewayLimits {
  /** Every request, keyed by client address (IPv6 by /64). */
  perIp: RateLimitRule;
  /** Requests with a verified principal, keyed by API key id or user id. */
  perPrincipal: RateLimitRule;
}

/** OpenTelemetry's span of one exchange (adapters/opentelemetry), so the gateway stays free of the SDK. */
export interface GatewayTracing {
  /** Runs `fn` inside the exchange's span; `headers` carry it to the backend (traceparent). */
  inGatewaySpan(req: IncomingMessage, res: ServerResponse, trustIncoming: boolean, fn: (headers: Record<string, string>) => void): void;
}

export type GatewayErrorContext = 'rate-limit-store' | 'api-key-verification' | 'external-token-verification' | 'upstream' | 'handler';

export interface GatewayOptions {
  upstream: Upstream;
  tokenSigner: TokenSigner;
  verifyApiKey: (rawKey: string) => Promise<ApiKeyPrincipal | null>;
  /**
   * Off when absent. A bearer token the platform's signer refuses is offered here: the claims of the platform
   * user an external issuer's token maps to, or null (401). Rejects when the issuer cannot be reached (503).
   */
  externalAccessClaims?: ((token: string) => Promise<AccessTokenClaims | null>) | null;
  /**
   * Whether a rejection of `verifyApiKey` or `externalAccessClaims` means the database cannot be reached: the
   * gateway then answers 503 `DATABASE_UNAVAILABLE` with Retry-After, as the api does (docs/contracts.md "Delivery
   * guarantees"). Absent: every such rejection is the plain 503 of a credential that cannot be checked.
   */
  isDatabaseUnavailable?: (err: unknown) => boolean;
  rateLimitStore: RateLimitStore;
  limits: GatewayLimits;
  /** Keys the identity signature the backend checks (core/identity/gateway-signature.ts). */
  internalSecret: string;
  clock: Clock;
  /** Take the client address from X-Forwarded-For's first hop (only behind a proxy that sets it). Default false. */
  trustProxy?: boolean;
  /** How many verified access tokens to remember (0 disables the cache). Default 5000. */
  tokenCacheSize?: number;
  /** Bodies up to this size (with a Content-Length) are read before forwarding, larger ones streamed. Default 1 MiB. */
  bodyBufferLimitBytes?: number;
  /** Origins (`https://app.example.com`) allowed to send cookie-authenticated state-changing requests. */
  allowedOrigins?: string[];
  /** Told about swallowed failures: a rate-limit store that is down (the gateway then answers 503; the stores themselves fall back to in-process limits), and so on. */
  onError?: (err: unknown, context: GatewayErrorContext) => void;
  /** Told about each rate-limit refusal (the rate-limit metric): by client address, by principal, or store unavailable. */
  onRateLimited?: (scope: 'ip' | 'principal' | 'unavailable') => void;
  /** Spans of exchanges, continued by the backend; absent: no tracing. */
  tracing?: GatewayTracing;
}

const rule = {
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 1 },
    windowSeconds: { type: 'integer', minimum: 1, maximum: 86400 },
  },
  required: ['limit', 'windowSeconds'],
  additionalProperties: false,
} as const;

/** JSON schema (ajv) of the configurable part of the gateway options. */
export const gatewayOptionsSchema = {
  $id: 'gateway-options',
  type: 'object',
  properties: {
    limits: {
      type: 'object',
      properties: { perIp: rule, perPrincipal: rule },
      required: ['perIp', 'perPrincipal'],
      additionalProperties: false,
    },
    trustProxy: { type: 'boolean', default: false },
    tokenCacheSize: { type: 'integer', minimum: 0, maximum: 1000000, default: 5000 },
    bodyBufferLimitBytes: { type: 'integer', minimum: 0, maximum: 64 * 1024 * 1024, default: 1024 * 1024 },
    allowedOrigins: { type: 'array', items: { type: 'string', pattern: '^https?://' } },
  },
  required: ['limits'],
  additionalProperties: false,
} as const;
