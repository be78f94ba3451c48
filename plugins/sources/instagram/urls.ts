/** Instagram URL forms (issue 13): profiles, and the post and reel URLs that are resolved to their profile. */
import { parseHttpUrl, unsupported } from '../_shared/url';

export const INSTAGRAM_ORIGIN = 'https://www.instagram.com';
const HOSTS = new Set(['instagram.com', 'www.instagram.com', 'm.instagram.com', 'instagr.am', 'www.instagr.am']);
/** Usernames: letters, digits, periods and underscores, at most 30 (Instagram's rule). */
const HANDLE = /^[A-Za-z0-9._]{1,30}$/;
const SHORTCODE = /^[A-Za-z0-9_-]{5,40}$/;
/** First path segments that are Instagram's own pages, never a profile. */
const RESERVED = new Set([
  'accounts',
  'direct',
  'explore',
  'about',
  'developer',
  'legal',
  'privacy',
  'terms',
  'challenge',
  'api',
  'graphql',
  'web',
  'static',
  'emails',
  'session',
  'oauth',
  'ar',
  'reels',
  'stories',
  'p',
  'reel',
  'tv',
]);
/** Profile tabs that still name the profile. */
const PROFILE_TABS = new Set(['reels', 'tagged', 'guides', 'feed', 'channel', 'saved', 'igtv']);
const POST_PATHS = new Set(['p', 'reel', 'reels', 'tv']);

export const isInstagramHost = (url: URL) => HOSTS.has(url.hostname.toLowerCase());

/**
 * The canonical URL: `https://www.instagram.com/<handle>` (lower case: usernames are case-insensitive), or
 * `https://www.instagram.com/p/<shortcode>` for a post or reel whose URL does not name its profile (the
 * profile is read from the post's public page when the source is read).
 */
export function normalizeInstagramUrl(input: string): string {
  const url = parseHttpUrl(input);
  if (!isInstagramHost(url)) throw unsupported('Not an Instagram URL', { url: input });
  const [first = '', second = '', third = ''] = url.pathname.split('/').filter(Boolean);
  if (POST_PATHS.has(first) && second) return postUrl(second, input);
  if (first === 'stories' && HANDLE.test(second) && !RESERVED.has(second.toLowerCase())) return profileUrl(second);
  if (!first || RESERVED.has(first.toLowerCase()) || !HANDLE.test(first) || /^\.|\.$|\.\./.test(first))
    throw unsupported('This Instagram URL is not a profile, a post or a reel', { url: input });
  // Newer share links name the profile before the post: `/<handle>/p/<shortcode>`, `/<handle>/reel/<shortcode>`.
  if (!second || PROFILE_TABS.has(second.toLowerCase()) || (POST_PATHS.has(second) && SHORTCODE.test(third))) return profileUrl(first);
  throw unsupported('This Instagram URL is not a profile, a post or a reel', { url: input });
}

const profileUrl = (handle: string) => `${INSTAGRAM_ORIGIN}/${handle.toLowerCase()}`;

function postUrl(shortcode: string, input: string): string {
  if (!SHORTCODE.test(shortcode)) throw unsupported('The Instagram post id is malformed', { url: input });
  return `${INSTAGRAM_ORIGIN}/p/${shortcode}`;
}

/** The handle a canonical profile URL names; null for a post URL. */
export function handleOf(canonical: string): string | null {
  const m = /^https:\/\/www\.instagram\.com\/([a-z0-9._]{1,30})$/.exec(canonical);
  return m && m[1] !== 'p' ? m[1] : null;
}

/** The shortcode a canonical post URL names. */
export const shortcodeOf = (canonical: string): string | null => /\/p\/([A-Za-z0-9_-]{5,40})$/.exec(canonical)?.[1] ?? null;

export const isHandle = (value: string) => HANDLE.test(value) && !RESERVED.has(value.toLowerCase());
