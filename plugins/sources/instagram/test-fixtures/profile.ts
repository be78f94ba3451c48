/**
 * Recorded shapes of Instagram's public surfaces, for a local fake upstream: the web profile endpoint
 * `/api/v1/users/web_profile_info/?username=…` (`{"data":{"user":{…}},"status":"ok"}` with the
 * `edge_owner_to_timeline_media` edges as instagram.com receives them), a post page `/p/<shortcode>/` (og
 * meta and the owner in its embedded JSON), the answers for private, unknown and throttled profiles, and
 * the Graph API (`/me`, `/{ig-user-id}/media`). Used by the plugin's conformance sample and the
 * provisioning tests.
 */
export interface FakePost {
  shortcode: string;
  caption: string;
  isVideo?: boolean;
  /** A video served at `/media/<shortcode>.mp4` (listed as `video_url`): its size in bytes. */
  mediaBytes?: number;
}

export interface FakeProfile {
  handle: string;
  id: string;
  fullName: string;
  biography: string;
  isPrivate?: boolean;
  posts: FakePost[];
  /** Answer the profile endpoint with Instagram's throttling reply. */
  throttled?: boolean;
}

export interface FakeReplyShape {
  status?: number;
  type: string;
  body: string;
}

const json = (value: unknown, status = 200): FakeReplyShape => ({ status, type: 'application/json; charset=utf-8', body: JSON.stringify(value) });
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
/** Posts are a day apart, the first the most recent. */
const takenAt = (i: number) => 1716897600 - i * 86400;

const postNode = (p: FakeProfile, post: FakePost, i: number) => ({
  __typename: post.isVideo ? 'GraphVideo' : 'GraphImage',
  id: `${p.id}${String(i).padStart(4, '0')}`,
  shortcode: post.shortcode,
  dimensions: { height: 1350, width: 1080 },
  display_url: `https://scontent.cdninstagram.com/v/t51.2885-15/${post.shortcode}.jpg`,
  edge_media_to_tagged_user: { edges: [] },
  fact_check_overall_rating: null,
  is_video: post.isVideo === true,
  ...(post.isVideo ? { video_view_count: 1234, product_type: 'clips' } : {}),
  // Instagram lists the CDN URL of the file; the fake serves it itself (resolved against INSTAGRAM_BASE_URL).
  ...(post.isVideo && post.mediaBytes ? { video_url: `/media/${post.shortcode}.mp4` } : {}),
  accessibility_caption: post.isVideo ? null : `Photo by ${p.fullName} on ${new Date(takenAt(i) * 1000).toDateString()}.`,
  edge_media_to_caption: { edges: post.caption ? [{ node: { text: post.caption } }] : [] },
  edge_media_to_comment: { count: 12 },
  comments_disabled: false,
  taken_at_timestamp: takenAt(i),
  edge_liked_by: { count: 345 },
  edge_media_preview_like: { count: 345 },
  owner: { id: p.id, username: p.handle },
  thumbnail_src: `https://scontent.cdninstagram.com/v/t51.2885-15/${post.shortcode}_thumb.jpg`,
});

export const webProfileInfo = (p: FakeProfile) => ({
  data: {
    user: {
      biography: p.biography,
      bio_links: [],
      external_url: null,
      edge_followed_by: { count: 48213 },
      edge_follow: { count: 312 },
      full_name: p.fullName,
      id: p.id,
      is_business_account: true,
      is_private: p.isPrivate === true,
      is_verified: false,
      profile_pic_url: `https://scontent.cdninstagram.com/v/t51.2885-19/${p.id}.jpg`,
      username: p.handle,
      edge_owner_to_timeline_media: {
        count: p.posts.length,
        page_info: { has_next_page: p.posts.length > 12, end_cursor: p.posts.length > 12 ? 'QVFD' : null },
        // Private profiles show their counts but no posts; the endpoint returns at most 12.
        edges: p.isPrivate ? [] : p.posts.slice(0, 12).map((post, i) => ({ node: postNode(p, post, i) })),
      },
    },
  },
  status: 'ok',
});

export const postPage = (p: FakeProfile, post: FakePost) =>
  `<!DOCTYPE html><html lang="en"><head><title>${esc(p.fullName)} on Instagram</title>` +
  `<meta property="og:title" content="${esc(p.fullName)} (@${p.handle}) &#x2022; Instagram photos and videos">` +
  `<meta property="og:url" content="https://www.instagram.com/p/${post.shortcode}/">` +
  `<meta property="og:description" content="345 likes, 12 comments - ${p.handle}: ${esc(post.caption.slice(0, 80))}">` +
  `</head><body><script type="application/json">{"require":[["ScheduledServerJS",{"shortcode_media":{"shortcode":"${post.shortcode}","owner":{"id":"${p.id}","username":"${p.handle}"}}}]]}</script></body></html>`;

const graphMedia = (p: FakeProfile, limit: number) => ({
  data: p.posts.slice(0, limit).map((post, i) => ({
    caption: post.caption,
    media_type: post.isVideo ? 'VIDEO' : 'IMAGE',
    ...(post.isVideo ? { media_url: `https://scontent.cdninstagram.com/o1/v/t16/f2/m86/${post.shortcode}.mp4` } : {}),
    permalink: `https://www.instagram.com/${post.isVideo ? 'reel' : 'p'}/${post.shortcode}/`,
    timestamp: new Date(takenAt(i) * 1000).toISOString().replace(/\.\d{3}Z$/, '+0000'),
    id: `${p.id}${String(i).padStart(4, '0')}`,
  })),
  paging: { cursors: { before: 'QVFIUj', after: 'QVFIUk' } },
});

/** Answers Instagram site requests for the given profiles (path and query only; any host). */
export function instagramUpstream(profiles: FakeProfile[], path: string, query: URLSearchParams): FakeReplyShape | undefined {
  if (path === '/api/v1/users/web_profile_info/' || path === '/api/v1/users/web_profile_info') {
    const p = profiles.find((x) => x.handle === query.get('username')?.toLowerCase());
    if (!p) return json({ data: { user: null }, status: 'ok' });
    if (p.throttled) return json({ message: 'Please wait a few minutes before you try again.', require_login: true, status: 'fail' }, 401);
    return json(webProfileInfo(p));
  }
  const media = /^\/media\/([A-Za-z0-9_-]+)\.mp4$/.exec(path)?.[1];
  if (media) {
    const found = profiles.flatMap((x) => x.posts).find((q) => q.shortcode === media && q.mediaBytes);
    return found ? { type: 'video/mp4', body: `\u0000\u0000\u0000\u0018ftypmp42${'x'.repeat(Math.max(0, found.mediaBytes! - 12))}` } : undefined;
  }
  const post = /^\/(?:p|reel)\/([A-Za-z0-9_-]+)\/?$/.exec(path)?.[1];
  if (post) {
    const p = profiles.find((x) => !x.isPrivate && x.posts.some((q) => q.shortcode === post));
    const found = p?.posts.find((q) => q.shortcode === post);
    return p && found ? { type: 'text/html; charset=utf-8', body: postPage(p, found) } : undefined;
  }
  return undefined;
}

/** Answers Graph API requests with the token `token`, which belongs to `owner`. */
export function instagramGraphUpstream(owner: FakeProfile, token: string, path: string, query: URLSearchParams): FakeReplyShape {
  if (query.get('access_token') !== token)
    return json({ error: { message: 'Invalid OAuth access token - Cannot parse access token', type: 'OAuthException', code: 190 } }, 400);
  if (path === '/me') return json({ id: owner.id, username: owner.handle, name: owner.fullName, biography: owner.biography });
  if (path === `/${owner.id}/media`) return json(graphMedia(owner, Number(query.get('limit') ?? 25)));
  return json({ error: { message: 'Unsupported get request.', type: 'GraphMethodException', code: 100 } }, 400);
}

/** A baker's profile of `count` posts, every fourth a reel without a caption. */
export function bakerProfile(handle = 'fixturebakes', count = 10, id = '1784140571'): FakeProfile {
  const topics = ['sourdough starter', 'croissant lamination', 'rye bread', 'cinnamon buns', 'focaccia', 'bagels'];
  return {
    handle,
    id,
    fullName: 'Fixture Bakes',
    biography: 'Home baker sharing weekly bread recipes. Sourdough classes every Saturday in Lyon.',
    posts: Array.from({ length: count }, (_, i) => {
      const topic = topics[i % topics.length];
      return {
        shortcode: `C${handle.slice(0, 3)}${String(i + 1).padStart(7, '0')}`,
        isVideo: i % 4 === 3,
        caption:
          i % 4 === 3
            ? ''
            : `Baking ${topic} today 🍞\nThe trick for ${topic}: hydrate the dough to 75% and rest it overnight in the fridge.\n#baking #${topic.split(' ')[0]}`,
      };
    }),
  };
}
