import { createHmac, timingSafeEqual } from 'node:crypto';

import { isOrgRole, PLATFORM_ROLES } from '../../core/identity/roles';
import type { TokenClaims, TokenSigner } from '../../core/identity/token-claims';
import type { Clock } from '../../core/ports/clock';
import { DomainError } from '../../core/shared/errors';

export interface Hs256TokenSignerOptions {
  secret: string;
  clock: Clock;
}

/** Tokens longer than this are refused before any parsing. */
const MAX_TOKEN_LENGTH = 16 * 1024;
const B64URL = /^[A-Za-z0-9_-]+$/;
const HEADER = b64url(Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })));

function b64url(buf: Buffer): string {
  return buf.toString('base64url');
}

function parseSegment(segment: string): Record<string, unknown> | null {
  if (!B64URL.test(segment)) return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const isString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function hasClaimShape(p: Record<string, unknown>): boolean {
  if (!isString(p.userId) || !isNumber(p.iat) || !isNumber(p.exp)) return false;
  if (p.typ === 'access') {
    return (
      typeof p.email === 'string' &&
      (PLATFORM_ROLES as readonly unknown[]).includes(p.platformRole) &&
      Array.isArray(p.organizations) &&
      p.organizations.every(
        (o: unknown) =>
          o !== null &&
          typeof o === 'object' &&
          isString((o as Record<string, unknown>).id) &&
          isOrgRole((o as Record<string, unknown>).role),
      )
    );
  }
  if (p.typ === 'refresh') return isString(p.jti) && isString(p.fam) && typeof p.org === 'string';
  return false;
}

/**
 * HS256 compact JWS (RFC 7515/7519). `verify` accepts exactly `alg: HS256`, checks the signature in constant
 * time, refuses expired tokens and a `typ` claim other than the one asked for, and returns null (never throws)
 * on any bad input.
 */
export class Hs256TokenSigner implements TokenSigner {
  readonly id = 'hs256';
  private readonly key: Buffer;
  private readonly clock: Clock;

  constructor(options: Hs256TokenSignerOptions) {
    if (typeof options.secret !== 'string' || options.secret.length === 0) {
      throw new DomainError('NOT_CONFIGURED', 'Hs256TokenSigner needs a non-empty secret');
    }
    this.key = Buffer.from(options.secret, 'utf8');
    this.clock = options.clock;
  }

  sign(claims: TokenClaims): string {
    const input = `${HEADER}.${b64url(Buffer.from(JSON.stringify(claims), 'utf8'))}`;
    return `${input}.${this.mac(input)}`;
  }

  verify<T extends TokenClaims['typ']>(token: string, typ: T): Extract<TokenClaims, { typ: T }> | null {
    if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH) return null;
    const parts = token.split('.');
    if (parts.length !== 3) return null;
    const [h, p, s] = parts as [string, string, string];
    const header = parseSegment(h);
    if (!header || header.alg !== 'HS256') return null;
    if (header.typ !== undefined && header.typ !== 'JWT') return null;
    if (header.crit !== undefined) return null;
    if (!B64URL.test(s) || !this.signatureMatches(`${h}.${p}`, s)) return null;
    const payload = parseSegment(p);
    if (!payload || payload.typ !== typ || !hasClaimShape(payload)) return null;
    if ((payload.exp as number) * 1000 <= this.clock.now().getTime()) return null;
    return payload as unknown as Extract<TokenClaims, { typ: T }>;
  }

  private mac(input: string): string {
    return createHmac('sha256', this.key).update(input).digest('base64url');
  }

  /** Compares the canonical encodings, so a non-canonical base64url variant of a valid signature fails too. */
  private signatureMatches(input: string, signature: string): boolean {
    const expected = Buffer.from(this.mac(input), 'latin1');
    const given = Buffer.from(signature, 'latin1');
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}
