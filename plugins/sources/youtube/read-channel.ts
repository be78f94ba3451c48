/**
 * Reading a YouTube channel: its id (from the canonical URL or the channel / video page), its recent videos
 * (the public Atom feed, or the Data API when YOUTUBE_API_KEY is set) and each video's captions (timedtext),
 * falling back to the video description when a video has none. Every request goes through the context's
 * SSRF-guarded fetcher; base URLs are configurable so tests use a local fake.
 */
import { XMLParser } from 'fast-xml-parser';

import type { SourceContext, SourceItemContent, SourceListing } from '../../../core/sources/source-plugin';
import { FEED_ACCEPT, get, getOk } from '../_shared/fetch';
import { unsupported } from '../_shared/url';
import { channelIdOf, isCanonicalChannelId, onBase, YOUTUBE_ORIGIN } from './urls';

const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', textNodeName: '#text', trimValues: true });
const arr = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
const text = (v: unknown): string =>
  typeof v === 'string' || typeof v === 'number'
    ? String(v)
    : v && typeof v === 'object'
      ? text((v as Record<string, unknown>)['#text'])
      : '';

export interface YouTubeEndpoints {
  base: string;
  dataApi: string;
  apiKey?: string;
  /** Where a video's audio or video is served (`<media>/<videoId>`); YouTube exposes none publicly. */
  media?: string;
}

export function endpointsOf(ctx: SourceContext): YouTubeEndpoints {
  return {
    base: ctx.secrets.get('YOUTUBE_BASE_URL') ?? YOUTUBE_ORIGIN,
    dataApi: ctx.secrets.get('YOUTUBE_DATA_API_URL') ?? 'https://www.googleapis.com',
    apiKey: ctx.secrets.get('YOUTUBE_API_KEY'),
    media: ctx.secrets.get('YOUTUBE_MEDIA_URL')?.replace(/\/$/, ''),
  };
}

/** The channel id of a canonical URL: named in it, or read from the page (`"channelId":"UC…"`, canonical link, meta). */
export async function resolveChannelId(ctx: SourceContext, canonical: string, ep: YouTubeEndpoints): Promise<string> {
  const named = channelIdOf(canonical);
  if (named) return named;
  const page = await getOk(ctx, onBase(canonical, ep.base), undefined, 'The YouTube page');
  const found =
    /<meta[^>]+itemprop=["'](?:channelId|identifier)["'][^>]+content=["'](UC[A-Za-z0-9_-]{22})["']/i.exec(page.text)?.[1] ??
    /"(?:channelId|externalId|browseId)"\s*:\s*"(UC[A-Za-z0-9_-]{22})"/.exec(page.text)?.[1] ??
    /<link[^>]+rel=["']canonical["'][^>]+\/channel\/(UC[A-Za-z0-9_-]{22})/i.exec(page.text)?.[1];
  if (!found || !isCanonicalChannelId(found)) throw unsupported('No YouTube channel was found at this URL', { url: canonical });
  return found;
}

interface Video {
  id: string;
  title: string;
  description: string;
  publishedAt?: string;
}

async function feedVideos(ctx: SourceContext, channelId: string, ep: YouTubeEndpoints, max: number) {
  const res = await get(ctx, `${ep.base.replace(/\/$/, '')}/feeds/videos.xml?channel_id=${channelId}`, FEED_ACCEPT);
  if (res.status === 404) return { title: undefined, author: undefined, videos: [] as Video[] };
  if (res.status < 200 || res.status > 299) throw unsupported(`The channel feed answered HTTP ${res.status}`, { channelId });
  const feed = (xml.parse(res.text) as { feed?: Record<string, unknown> }).feed ?? {};
  const videos = arr(feed.entry as Record<string, unknown>[] | undefined)
    .slice(0, max)
    .map((e) => {
      const group = (e['media:group'] ?? {}) as Record<string, unknown>;
      return {
        id: text(e['yt:videoId']),
        title: text(e.title) || text(group['media:title']),
        description: text(group['media:description']),
        publishedAt: text(e.published) || undefined,
      };
    })
    .filter((v) => v.id);
  const author = text((feed.author as Record<string, unknown> | undefined)?.name) || undefined;
  return { title: text(feed.title) || author, author, videos };
}

/** The fields read from Data API `channels` and `playlistItems` items. */
interface DataApiItem {
  contentDetails?: { relatedPlaylists?: { uploads?: string } };
  snippet?: { title?: string; description?: string; publishedAt?: string; resourceId?: { videoId?: string } };
}

async function dataApiJson(ctx: SourceContext, ep: YouTubeEndpoints, path: string, params: Record<string, string>) {
  const query = new URLSearchParams({ ...params, key: ep.apiKey ?? '' });
  const res = await getOk(ctx, `${ep.dataApi.replace(/\/$/, '')}/youtube/v3/${path}?${query}`, 'application/json', 'The YouTube Data API');
  return JSON.parse(res.text) as { items?: DataApiItem[] };
}

async function apiVideos(ctx: SourceContext, channelId: string, ep: YouTubeEndpoints, max: number) {
  const channel = (await dataApiJson(ctx, ep, 'channels', { part: 'snippet,contentDetails', id: channelId })).items?.[0];
  if (!channel) return { title: undefined, author: undefined, videos: [] as Video[] };
  const uploads = channel.contentDetails?.relatedPlaylists?.uploads;
  const items = uploads
    ? ((await dataApiJson(ctx, ep, 'playlistItems', { part: 'snippet', playlistId: uploads, maxResults: String(Math.min(max, 50)) }))
        .items ?? [])
    : [];
  const videos = items.slice(0, max).map((i) => ({
    id: String(i.snippet?.resourceId?.videoId ?? ''),
    title: String(i.snippet?.title ?? ''),
    description: String(i.snippet?.description ?? ''),
    publishedAt: i.snippet?.publishedAt,
  }));
  const title = channel.snippet?.title;
  return { title, author: title, videos: videos.filter((v) => v.id) };
}

/** Captions of a video as plain text (timedtext XML); empty when it has none. */
async function captions(ctx: SourceContext, videoId: string, ep: YouTubeEndpoints): Promise<string> {
  const res = await get(ctx, `${ep.base.replace(/\/$/, '')}/api/timedtext?v=${videoId}&lang=en`, FEED_ACCEPT);
  if (res.status < 200 || res.status > 299 || !res.text.trim()) return '';
  const doc = xml.parse(res.text) as { transcript?: { text?: unknown } };
  return arr(doc.transcript?.text as unknown[] | undefined)
    .map((t) => decodeEntities(text(t)))
    .filter(Boolean)
    .join(' ');
}

const decodeEntities = (s: string) =>
  s
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** Recent videos of the channel (most recent first, at most `max`), each with its captions or description. */
export async function readChannel(ctx: SourceContext, canonical: string, max: number): Promise<SourceListing> {
  const ep = endpointsOf(ctx);
  const channelId = await resolveChannelId(ctx, canonical, ep);
  const { title, author, videos } = ep.apiKey ? await apiVideos(ctx, channelId, ep, max) : await feedVideos(ctx, channelId, ep, max);
  const items: SourceItemContent[] = [];
  // A few videos at a time: bounded load on the upstream, still quick for a preview of 8.
  for (let i = 0; i < videos.length; i += 4) {
    const batch = await Promise.all(videos.slice(i, i + 4).map(async (v) => toItem(v, await captions(ctx, v.id, ep), ep.media)));
    items.push(...batch);
  }
  return { title, author, items: items.map((item) => ({ key: item.key, url: item.url, title: item.title, item })) };
}

function toItem(v: Video, transcript: string, media: string | undefined): SourceItemContent {
  const body = transcript || v.description;
  return {
    // Without captions the description stands in, unless a build transcribes the media.
    ...(!transcript && media ? { mediaUrl: `${media}/${encodeURIComponent(v.id)}` } : {}),
    key: v.id,
    url: `${YOUTUBE_ORIGIN}/watch?v=${v.id}`,
    title: v.title || v.id,
    text: body ? `${v.title}\n\n${body}` : v.title,
    mimeType: 'text/plain',
    publishedAt: v.publishedAt,
    excerpt: v.description.slice(0, 500) || undefined,
  };
}
