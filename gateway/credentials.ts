import type { IncomingHttpHeaders } from 'node:http';

/** `{kind: 'none'}` no credential, `{kind: 'malformed'}` an Authorization header that is not `Bearer <token>`. */
export type Credential = { kind: 'none' } | { kind: 'malformed' } | { kind: 'token'; token: string };

const BEARER = /^Bearer +([^\s]+) *$/i;
const NONE: Credential = { kind: 'none' };
const MALFORMED: Credential = { kind: 'malformed' };

export function bearerCredential(headers: IncomingHttpHeaders): Credential {
  const auth = headers.authorization;
  if (auth === undefined) return NONE;
  const m = BEARER.exec(auth);
  return m ? { kind: 'token', token: m[1]! } : MALFORMED;
}

/** The Authorization header first; without one, the `access_token` cookie (spec 5.1). */
export function bearerOrCookieCredential(headers: IncomingHttpHeaders): Credential {
  const fromHeader = bearerCredential(headers);
  if (fromHeader.kind !== 'none') return fromHeader;
  const token = cookieValue(headers.cookie, 'access_token');
  return token ? { kind: 'token', token } : NONE;
}

/** First cookie of that name (browsers send the most specific path first). */
export function cookieValue(cookieHeader: string | undefined, name: string): string | null {
  if (!cookieHeader) return null;
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1 || part.slice(0, eq).trim() !== name) continue;
    let value = part.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    try {
      value = decodeURIComponent(value);
    } catch {
      /* keep the raw value; it will fail verification */
    }
    return value || null;
  }
  return null;
}
