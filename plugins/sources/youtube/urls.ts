/** YouTube URL forms (issue 13): channel pages and the video URLs that are resolved to their channel. */
import { parseHttpUrl, unsupported } from '../_shared/url';

export const YOUTUBE_ORIGIN = 'https://www.youtube.com';
const HOSTS = new Set(['youtube.com', 'www.youtube.com', 'm.youtube.com', 'music.youtube.com', 'youtu.be', 'www.youtu.be']);
const CHANNEL_ID = /^UC[A-Za-z0-9_-]{22}$/;
const VIDEO_ID = /^[A-Za-z0-9_-]{11}$/;
const NAME = /^[A-Za-z0-9._-]{1,100}$/;

export const isYouTubeHost = (url: URL) => HOSTS.has(url.hostname.toLowerCase());

/**
 * The canonical URL: `https://www.youtube.com/@handle` (lower case, handles are case-insensitive),
 * `/channel/UC…`, `/c/name`, `/user/name`, or `/watch?v=ID` for a video (its channel is found when read).
 */
export function normalizeYouTubeUrl(input: string): string {
  const url = parseHttpUrl(input);
  if (!isYouTubeHost(url)) throw unsupported('Not a YouTube URL', { url: input });
  const parts = url.pathname.split('/').filter(Boolean);
  if (url.hostname.toLowerCase().endsWith('youtu.be')) return watchUrl(parts[0], input);
  const [first = '', second = ''] = parts;
  if (first.startsWith('@') && NAME.test(first.slice(1))) return `${YOUTUBE_ORIGIN}/${first.toLowerCase()}`;
  if (first === 'channel' && CHANNEL_ID.test(second)) return `${YOUTUBE_ORIGIN}/channel/${second}`;
  if ((first === 'c' || first === 'user') && NAME.test(second)) return `${YOUTUBE_ORIGIN}/${first}/${second.toLowerCase()}`;
  if (first === 'watch') return watchUrl(url.searchParams.get('v') ?? '', input);
  if ((first === 'shorts' || first === 'live' || first === 'embed') && second) return watchUrl(second, input);
  throw unsupported('This YouTube URL is not a channel or a video', { url: input });
}

function watchUrl(id: string | undefined, input: string): string {
  if (!id || !VIDEO_ID.test(id)) throw unsupported('The YouTube video id is malformed', { url: input });
  return `${YOUTUBE_ORIGIN}/watch?v=${id}`;
}

/** The channel id when the canonical URL names it. */
export const channelIdOf = (canonical: string): string | null => {
  const m = /\/channel\/(UC[A-Za-z0-9_-]{22})$/.exec(canonical);
  return m ? m[1] : null;
};

export const isCanonicalChannelId = (id: string) => CHANNEL_ID.test(id);

/** The same path on another base (the configured YOUTUBE_BASE_URL, a local fake in tests). */
export const onBase = (canonical: string, base: string) => `${base.replace(/\/$/, '')}${canonical.slice(YOUTUBE_ORIGIN.length)}`;
