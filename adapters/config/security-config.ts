/** Configuration keys of the security hardening (issue 8): origins, input limits, sign-in and sign-up limits. */
export interface SecurityConfig {
  /** Origins allowed to send cookie-authenticated state-changing requests (besides the gateway's own). */
  allowedOrigins: string[];
  /** Origins whose pages may call the public lane and /v1 from a browser (CORS); `*` for any. */
  corsOrigins: string[];
  /** Deepest JSON nesting a request body may have. */
  jsonMaxDepth: number;
  /** How old a gateway signature may be when it reaches the api (ms). */
  signatureMaxAgeMs: number;
  /** Bodies up to this size are read by the gateway and signed by digest; larger ones carry a signed trailer. */
  gatewayBodyBufferBytes: number;
  login: { failuresPerAccount: number; failuresPerIp: number; windowSeconds: number };
  registration: { perIp: number; windowSeconds: number };
  password: { minLength: number; commonListSize: number };
}

export const securityConfigSchemaProperties = {
  ALLOWED_ORIGINS: {
    type: 'string',
    default: '',
    description: 'Comma-separated origins (https://app.example.com) allowed to use the access_token cookie on unsafe methods',
  },
  CORS_ORIGINS: {
    type: 'string',
    default: '*',
    description: 'Comma-separated origins whose pages may call the public chat lane and /v1 (CORS); * for any, empty for none',
  },
  JSON_MAX_DEPTH: { type: 'integer', minimum: 2, maximum: 1000, default: 64, description: 'Deepest nesting of a JSON request body' },
  SIGNATURE_MAX_AGE_MS: {
    type: 'integer',
    minimum: 1000,
    maximum: 60000,
    default: 10000,
    description: 'Oldest gateway signature the api accepts (each is accepted once)',
  },
  GATEWAY_BODY_BUFFER_BYTES: {
    type: 'integer',
    minimum: 0,
    default: 1048576,
    description: 'Bodies up to this size are read by the gateway before forwarding (digest in the signed headers)',
  },
  LOGIN_FAILURES_PER_ACCOUNT: {
    type: 'integer',
    minimum: 1,
    default: 10,
    description: 'Failed sign-ins per account per window before the account is locked for the window',
  },
  LOGIN_FAILURES_PER_IP: { type: 'integer', minimum: 1, default: 100, description: 'Failed sign-ins per client IP per window' },
  LOGIN_WINDOW_SECONDS: { type: 'integer', minimum: 1, maximum: 86400, default: 900 },
  REGISTRATIONS_PER_IP: { type: 'integer', minimum: 1, default: 30, description: 'Registrations per client IP per window' },
  REGISTRATION_WINDOW_SECONDS: { type: 'integer', minimum: 1, maximum: 86400, default: 60 },
  PASSWORD_MIN_LENGTH: { type: 'integer', minimum: 8, maximum: 128, default: 8 },
  PASSWORD_COMMON_LIST_SIZE: {
    type: 'integer',
    minimum: 0,
    maximum: 50000,
    default: 50000,
    description:
      'How many of the most common passwords (zxcvbn-ts frequency list, ~49,000: all by default) are refused, with their simple variations',
  },
} as const;

export function securityConfigFrom(raw: Record<string, unknown>): SecurityConfig {
  return {
    allowedOrigins: String(raw.ALLOWED_ORIGINS ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    corsOrigins: String(raw.CORS_ORIGINS ?? '*')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    jsonMaxDepth: raw.JSON_MAX_DEPTH as number,
    signatureMaxAgeMs: raw.SIGNATURE_MAX_AGE_MS as number,
    gatewayBodyBufferBytes: raw.GATEWAY_BODY_BUFFER_BYTES as number,
    login: {
      failuresPerAccount: raw.LOGIN_FAILURES_PER_ACCOUNT as number,
      failuresPerIp: raw.LOGIN_FAILURES_PER_IP as number,
      windowSeconds: raw.LOGIN_WINDOW_SECONDS as number,
    },
    registration: { perIp: raw.REGISTRATIONS_PER_IP as number, windowSeconds: raw.REGISTRATION_WINDOW_SECONDS as number },
    password: { minLength: raw.PASSWORD_MIN_LENGTH as number, commonListSize: raw.PASSWORD_COMMON_LIST_SIZE as number },
  };
}
