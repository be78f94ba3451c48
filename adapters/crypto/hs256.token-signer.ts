import { createHmac } from 'node:crypto';

import { decodeProtectedHeader, jwtVerify } from 'jose';

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
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

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

/** The header must be exactly what the platform issues: alg HS256, typ JWT or absent, nothing critical. */
function headerAllowed(token: string): boolean {
  try {
    const header = decodeProtectedHeader(token);
    return header.alg === 'HS256' && (header.typ === undefined || header.typ === 'JWT') && header.crit === undefined;
  } catch {
    return false;
  }
}

/**
 * HS256 compact JWS (RFC 7515/7519) verified by `jose` with the algorithm pinned to HS256. Around it: a length
 * cap and a strict shape check before any parsing, a canonical-signature check (jose's base64url decoding is
 * lenient), and the platform's claim shape and `typ` after. `verify` never throws; it resolves null on any bad
 * input. Signing stays synchronous (an HMAC over the platform's own claims; callers depend on it being sync)
 * and produces tokens jose and any standard HS256 implementation accept.
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
    const input = `${HEADER}.${Buffer.from(JSON.stringify(claims), 'utf8').toString('base64url')}`;
    return `${input}.${this.mac(input)}`;
  }

  async verify<T extends TokenClaims['typ']>(token: string, typ: T): Promise<Extract<TokenClaims, { typ: T }> | null> {
    if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH || !COMPACT_JWS.test(token)) return null;
    if (!headerAllowed(token) || !this.canonicalSignature(token)) return null;
    const now = this.clock.now();
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'], currentDate: now, clockTolerance: 0 }));
    } catch {
      return null;
    }
    if (payload.typ !== typ || !hasClaimShape(payload)) return null;
    if ((payload.exp as number) * 1000 <= now.getTime()) return null;
    return payload as unknown as Extract<TokenClaims, { typ: T }>;
  }

  private mac(input: string): string {
    return createHmac('sha256', this.key).update(input).digest('base64url');
  }

  /** A signature whose base64url text is not the canonical encoding of its bytes is refused. */
  private canonicalSignature(token: string): boolean {
    const signature = token.slice(token.lastIndexOf('.') + 1);
    return Buffer.from(signature, 'base64url').toString('base64url') === signature;
  }
}
