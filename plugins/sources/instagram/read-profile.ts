/**
 * Reading an Instagram profile: its handle (named in the canonical URL, or read from a post's public page),
 * its name and biography and its recent posts' captions. Public profile data by default (the web profile
 * endpoint the instagram.com site itself calls); the Graph API when INSTAGRAM_ACCESS_TOKEN is set and the
 * token belongs to that profile (the Graph API only lists the media of the token's own account). Every
 * request goes through the context's SSRF-guarded fetcher; base URLs are configurable so tests use a local fake.
 */
import { DomainError } from '../../../core/shared/errors';
import type { SourceContext, SourceItemContent, SourceListing } from '../../../core/sources/source-plugin';
import { type Fetched, getOk, statusError } from '../_shared/fetch';
import { unsupported } from '../_shared/url';
import { handleOf, INSTAGRAM_ORIGIN, isHandle, shortcodeOf } from './urls';

/** The app id instagram.com sends with its own profile requests; the endpoint refuses requests without one. */
const WEB_APP_ID = '936619743392459';

export interface InstagramEndpoints {
  base: string;
  graphApi: string;
  token?: string;
}

export function endpointsOf(ctx: SourceContext): InstagramEndpoints {
  return {
    base: (ctx.secrets.get('INSTAGRAM_BASE_URL') ?? INSTAGRAM_ORIGIN).replace(/\/$/, ''),
    graphApi: (ctx.secrets.get('INSTAGRAM_GRAPH_API_URL') ?? 'https://graph.instagram.com').replace(/\/$/, ''),
    token: ctx.secrets.get('INSTAGRAM_ACCESS_TOKEN'),
  };
}

async function getJson(ctx: SourceContext, url: string, headers: Record<string, string> = {}): Promise<Fetched & { json: unknown }> {
  const res = await ctx.fetcher.fetch({
    url,
    method: 'GET',
    headers: { accept: 'application/json', 'accept-language': 'en;q=0.9,*;q=0.5', ...headers },
    timeoutMs: ctx.requestTimeoutMs,
    maxBytes: ctx.maxResponseBytes,
  });
  const text = res.body.toString('utf8');
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    // Not JSON (a login wall or an error page): the status decides below.
  }
  return { status: res.status, url: res.url, contentType: res.headers['content-type'] ?? '', body: res.body, text, json };
}

const rateLimited = (what: string, details?: unknown) =>
  new DomainError('RATE_LIMITED', `${what} is rate-limiting requests; try again later`, details);
const notPublic = (message: string, handle: string) => new DomainError('NOT_FOUND', message, { handle });

/** The handle of a canonical URL: named in it, or the owner of the post read from the post's public page. */
export async function resolveHandle(ctx: SourceContext, canonical: string, ep: InstagramEndpoints): Promise<string> {
  const named = handleOf(canonical);
  if (named) return named;
  const shortcode = shortcodeOf(canonical);
  if (!shortcode) throw unsupported('This Instagram URL is not a profile or a post', { url: canonical });
  const page = await getOk(ctx, `${ep.base}/p/${shortcode}/`, undefined, 'The Instagram post');
  const found =
    /"owner"\s*:\s*\{[^{}]*?"username"\s*:\s*"([A-Za-z0-9._]{1,30})"/.exec(page.text)?.[1] ??
    /<meta[^>]+(?:property|name)=["'](?:og|twitter):title["'][^>]+content=["'][^"']*\(@([A-Za-z0-9._]{1,30})\)/i.exec(page.text)?.[1];
  if (!found || !isHandle(found))
    throw unsupported('The profile of this Instagram post is not public; use the profile URL instead', { url: canonical });
  return found.toLowerCase();
}

/** The fields read from the web profile endpoint's `data.user`. */
interface WebUser {
  username?: string;
  full_name?: string;
  biography?: string;
  is_private?: boolean;
  edge_owner_to_timeline_media?: { edges?: { node?: WebPost }[] };
}
interface WebPost {
  shortcode?: string;
  is_video?: boolean;
  video_url?: string;
  taken_at_timestamp?: number;
  edge_media_to_caption?: { edges?: { node?: { text?: string } }[] };
}

export interface Post {
  shortcode: string;
  caption: string;
  isVideo: boolean;
  publishedAt?: string;
  /** The video file of a reel or video post (`video_url`, Graph `media_url`). */
  videoUrl?: string;
}

/** A media URL as listed (absolute on Instagram's CDN; resolved against the base so a local fake can serve it). */
const mediaUrlOf = (value: unknown, base: string): string | undefined => {
  if (typeof value !== 'string' || !value) return undefined;
  try {
    const url = new URL(value, `${base}/`);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
};

export interface Profile {
  handle: string;
  fullName: string;
  biography: string;
  posts: Post[];
}

async function webProfile(ctx: SourceContext, handle: string, ep: InstagramEndpoints, max: number): Promise<Profile> {
  const url = `${ep.base}/api/v1/users/web_profile_info/?username=${encodeURIComponent(handle)}`;
  const res = await getJson(ctx, url, { 'x-ig-app-id': WEB_APP_ID });
  const body = (res.json ?? {}) as { data?: { user?: WebUser | null }; message?: string; require_login?: boolean };
  // Instagram answers throttling with 429, or with 401 and "Please wait a few minutes" plus require_login.
  if (res.status === 429 || (res.status === 401 && /wait a few minutes/i.test(body.message ?? '')))
    throw rateLimited('Instagram', { handle, status: res.status });
  if (res.status === 404) throw notPublic(`No Instagram profile @${handle} was found`, handle);
  if (res.status < 200 || res.status > 299) throw statusError(res, 'The Instagram profile');
  const user = body.data?.user;
  if (!user) throw notPublic(`No Instagram profile @${handle} was found`, handle);
  if (user.is_private) throw notPublic(`The Instagram profile @${handle} is private`, handle);
  const posts = (user.edge_owner_to_timeline_media?.edges ?? [])
    .map((e) => e.node ?? {})
    .filter((n): n is WebPost & { shortcode: string } => typeof n.shortcode === 'string' && n.shortcode.length > 0)
    .slice(0, max)
    .map((n) => ({
      shortcode: n.shortcode,
      caption: String(n.edge_media_to_caption?.edges?.[0]?.node?.text ?? ''),
      isVideo: n.is_video === true,
      publishedAt: typeof n.taken_at_timestamp === 'number' ? new Date(n.taken_at_timestamp * 1000).toISOString() : undefined,
      videoUrl: n.is_video === true ? mediaUrlOf(n.video_url, ep.base) : undefined,
    }));
  return { handle: user.username?.toLowerCase() || handle, fullName: user.full_name ?? '', biography: user.biography ?? '', posts };
}

interface GraphError {
  error?: { message?: string; code?: number };
}
/** Graph API throttling codes (application, user, page and custom-rate limits). */
const GRAPH_THROTTLED = new Set([4, 17, 32, 613]);

async function graphJson<T>(ctx: SourceContext, ep: InstagramEndpoints, path: string, params: Record<string, string>): Promise<T> {
  const query = new URLSearchParams({ ...params, access_token: ep.token ?? '' });
  const res = await getJson(ctx, `${ep.graphApi}${path}?${query}`);
  const error = (res.json as GraphError | null)?.error;
  if (res.status === 429 || (error?.code !== undefined && GRAPH_THROTTLED.has(error.code)))
    throw rateLimited('The Instagram Graph API', { status: res.status });
  // The message, never the URL: it carries the token.
  if (res.status < 200 || res.status > 299)
    throw new DomainError('UPSTREAM_FAILED', `The Instagram Graph API answered HTTP ${res.status}: ${error?.message ?? 'error'}`, {
      status: res.status,
    });
  return res.json as T;
}

interface GraphMedia {
  id?: string;
  caption?: string;
  media_type?: string;
  media_url?: string;
  permalink?: string;
  timestamp?: string;
}

/** The profile through the Graph API, when the token is that profile's; null otherwise (public data is read). */
async function graphProfile(ctx: SourceContext, handle: string, ep: InstagramEndpoints, max: number): Promise<Profile | null> {
  const me = await graphJson<{ id?: string; username?: string; name?: string; biography?: string }>(ctx, ep, '/me', {
    fields: 'id,username,name,biography',
  });
  if (!me.id || me.username?.toLowerCase() !== handle) return null;
  const media = await graphJson<{ data?: GraphMedia[] }>(ctx, ep, `/${encodeURIComponent(me.id)}/media`, {
    fields: 'caption,media_type,media_url,permalink,timestamp',
    limit: String(Math.min(max, 100)),
  });
  const posts = (media.data ?? []).slice(0, max).map((m) => ({
    // The shortcode of the permalink keeps an item's key the same whichever upstream listed it.
    shortcode: /\/(?:p|reel|tv)\/([A-Za-z0-9_-]+)/.exec(m.permalink ?? '')?.[1] ?? String(m.id ?? ''),
    caption: m.caption ?? '',
    isVideo: m.media_type === 'VIDEO' || m.media_type === 'REELS',
    videoUrl: m.media_type === 'VIDEO' || m.media_type === 'REELS' ? mediaUrlOf(m.media_url, ep.graphApi) : undefined,
    publishedAt: m.timestamp ? new Date(m.timestamp.replace(/([+-]\d\d)(\d\d)$/, '$1:$2')).toISOString() : undefined,
  }));
  return { handle, fullName: me.name ?? '', biography: me.biography ?? '', posts: posts.filter((p) => p.shortcode) };
}

export async function readProfile(ctx: SourceContext, canonical: string, max: number): Promise<Profile> {
  const ep = endpointsOf(ctx);
  const handle = await resolveHandle(ctx, canonical, ep);
  return (ep.token ? await graphProfile(ctx, handle, ep, max) : null) ?? webProfile(ctx, handle, ep, max);
}

const firstLine = (caption: string) =>
  caption
    .split('\n')
    .find((l) => l.trim())
    ?.trim() ?? '';

export function postItem(post: Post, handle: string): SourceItemContent {
  const line = firstLine(post.caption);
  const title = line ? (line.length > 100 ? `${line.slice(0, 99)}…` : line) : `${post.isVideo ? 'Reel' : 'Post'} by @${handle}`;
  return {
    key: post.shortcode,
    url: `${INSTAGRAM_ORIGIN}/p/${post.shortcode}`,
    title,
    text: post.caption.trim(),
    mimeType: 'text/plain',
    publishedAt: post.publishedAt,
    author: `@${handle}`,
    excerpt: post.caption.slice(0, 500) || undefined,
    // A reel without a caption has nothing to read but its sound: a build may transcribe it.
    ...(!post.caption.trim() && post.videoUrl ? { mediaUrl: post.videoUrl } : {}),
  };
}

/** The biography as an item of its own, so the agent can answer "who are you" questions. */
export const PROFILE_KEY = 'profile';

/**
 * The listing: the `max` most recent posts' captions, the biography last (within `max`: a preview of 8 is
 * 7 posts and the bio), so the analysis reads captions and bio through the same step as any channel.
 */
export async function readListing(ctx: SourceContext, canonical: string, max: number): Promise<SourceListing> {
  const profile = await readProfile(ctx, canonical, max);
  const name = profile.fullName.trim() || `@${profile.handle}`;
  const bio = profile.biography.trim();
  const posts = profile.posts.slice(0, bio ? Math.max(1, max - 1) : max).map((p) => postItem(p, profile.handle));
  const items: SourceItemContent[] = bio
    ? [
        ...posts,
        {
          key: PROFILE_KEY,
          url: `${INSTAGRAM_ORIGIN}/${profile.handle}`,
          title: `About ${name}`,
          text: `${name} (@${profile.handle}) on Instagram.\n\n${bio}`,
          mimeType: 'text/plain',
          author: `@${profile.handle}`,
          excerpt: bio.slice(0, 500),
        },
      ]
    : posts;
  return {
    title: name,
    author: `@${profile.handle}`,
    items: items.map((item) => ({ key: item.key, url: item.url, title: item.title, item })),
  };
}
