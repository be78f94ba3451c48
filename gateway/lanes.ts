/**
 * Which credentials a request needs, decided on the canonical path (decoded, lower-cased) so that
 * `/API/bots` or `/api%2fbots` cannot slip into a laxer lane than the backend would route them to.
 */
export type Lane = 'open' | 'public' | 'api-key' | 'jwt';

const OPEN_POST = new Set(['/api/auth/register', '/api/auth/login', '/api/auth/refresh']);
const OPEN_GET = new Set(['/api/auth/google', '/api/auth/google/callback', '/api/openapi.json', '/api/docs']);
/** OpenID Connect sign-in: the provider list, the redirect to a provider and its callback. */
const OPEN_SSO = /^\/api\/auth\/sso(\/[a-z0-9][a-z0-9-]*(\/callback)?)?$/;

function stripTrailingSlash(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

export function classifyLane(method: string, canonicalPath: string): Lane {
  const isApi = canonicalPath === '/api' || canonicalPath.startsWith('/api/');
  const isV1 = canonicalPath === '/v1' || canonicalPath.startsWith('/v1/');
  if (!isApi && !isV1) return 'open'; // /health, /marketplace/..., static files
  // CORS preflights carry no credentials by design; the backend answers them.
  if (method === 'OPTIONS') return 'open';
  if (isV1) return 'api-key';
  if (canonicalPath.startsWith('/api/public/') || canonicalPath === '/api/public') return 'public';
  const path = stripTrailingSlash(canonicalPath);
  if (method === 'POST' && OPEN_POST.has(path)) return 'open';
  if ((method === 'GET' || method === 'HEAD') && (OPEN_GET.has(path) || OPEN_SSO.test(path) || path.startsWith('/api/docs/')))
    return 'open';
  return 'jwt';
}
