/**
 * Recorded shapes of YouTube's public surfaces, for a local fake upstream: a channel page (`/@handle`, with
 * the `channelId` meta and ytInitialData key), the Atom feed `/feeds/videos.xml?channel_id=…` (yt: and media:
 * namespaces as YouTube serves them), and `/api/timedtext?v=…` captions. Used by the plugin's conformance
 * sample and the provisioning tests and benchmark.
 */
export interface FakeVideo {
  id: string;
  title: string;
  description: string;
  /** Caption lines; none: the video has no captions. */
  captions?: string[];
  /** Audio served at `/media/<id>` (the YOUTUBE_MEDIA_URL the tests configure): its size in bytes (fake MP3). */
  mediaBytes?: number;
}

export interface FakeChannel {
  handle: string;
  channelId: string;
  title: string;
  videos: FakeVideo[];
}

export interface FakeReplyShape {
  status?: number;
  type: string;
  body: string;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export const channelPage = (c: FakeChannel) =>
  `<!DOCTYPE html><html lang="en"><head><title>${esc(c.title)} - YouTube</title>` +
  `<meta itemprop="identifier" content="${c.channelId}"><link rel="canonical" href="https://www.youtube.com/channel/${c.channelId}">` +
  `</head><body><script>var ytInitialData = {"metadata":{"channelMetadataRenderer":{"title":${JSON.stringify(c.title)},"externalId":"${c.channelId}"}}};</script></body></html>`;

export const channelFeed = (c: FakeChannel) => `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns:yt="http://www.youtube.com/xml/schemas/2015" xmlns:media="http://search.yahoo.com/mrss/" xmlns="http://www.w3.org/2005/Atom">
 <link rel="self" href="http://www.youtube.com/feeds/videos.xml?channel_id=${c.channelId}"/>
 <id>yt:channel:${c.channelId.slice(2)}</id>
 <yt:channelId>${c.channelId.slice(2)}</yt:channelId>
 <title>${esc(c.title)}</title>
 <link rel="alternate" href="https://www.youtube.com/channel/${c.channelId}"/>
 <author><name>${esc(c.title)}</name><uri>https://www.youtube.com/channel/${c.channelId}</uri></author>
 <published>2019-03-01T10:00:00+00:00</published>
${c.videos
  .map(
    (v, i) => ` <entry>
  <id>yt:video:${v.id}</id>
  <yt:videoId>${v.id}</yt:videoId>
  <yt:channelId>${c.channelId}</yt:channelId>
  <title>${esc(v.title)}</title>
  <link rel="alternate" href="https://www.youtube.com/watch?v=${v.id}"/>
  <author><name>${esc(c.title)}</name><uri>https://www.youtube.com/channel/${c.channelId}</uri></author>
  <published>2024-05-${String(28 - i).padStart(2, '0')}T12:00:00+00:00</published>
  <updated>2024-05-${String(28 - i).padStart(2, '0')}T13:00:00+00:00</updated>
  <media:group>
   <media:title>${esc(v.title)}</media:title>
   <media:content url="https://www.youtube.com/v/${v.id}?version=3" type="application/x-shockwave-flash" width="640" height="390"/>
   <media:thumbnail url="https://i1.ytimg.com/vi/${v.id}/hqdefault.jpg" width="480" height="360"/>
   <media:description>${esc(v.description)}</media:description>
   <media:community><media:starRating count="12" average="5.00" min="1" max="5"/><media:statistics views="345"/></media:community>
  </media:group>
 </entry>`,
  )
  .join('\n')}
</feed>`;

export const timedText = (lines: string[]) =>
  `<?xml version="1.0" encoding="utf-8" ?><transcript>${lines
    .map((l, i) => `<text start="${i * 4}.0" dur="3.9">${esc(l)}</text>`)
    .join('')}</transcript>`;

/** Answers YouTube requests for the given channels (path and query only; any host). */
export function youtubeUpstream(channels: FakeChannel[], path: string, query: URLSearchParams): FakeReplyShape | undefined {
  const byHandle = channels.find((c) => path.toLowerCase() === `/@${c.handle.toLowerCase()}`);
  if (byHandle) return { type: 'text/html; charset=utf-8', body: channelPage(byHandle) };
  const byIdPage = channels.find((c) => path === `/channel/${c.channelId}`);
  if (byIdPage) return { type: 'text/html; charset=utf-8', body: channelPage(byIdPage) };
  if (path === '/feeds/videos.xml') {
    const c = channels.find((x) => x.channelId === query.get('channel_id'));
    return c ? { type: 'text/xml; charset=UTF-8', body: channelFeed(c) } : { status: 404, type: 'text/html', body: 'Not Found' };
  }
  if (path === '/api/timedtext') {
    const video = channels.flatMap((c) => c.videos).find((v) => v.id === query.get('v'));
    return { type: 'text/xml; charset=UTF-8', body: video?.captions?.length ? timedText(video.captions) : '' };
  }
  if (path.startsWith('/media/')) {
    const video = channels.flatMap((c) => c.videos).find((v) => v.id === decodeURIComponent(path.slice(7)));
    return video?.mediaBytes ? { type: 'audio/mpeg', body: fakeMp3(video.mediaBytes) } : undefined;
  }
  if (path === '/watch') {
    const c = channels.find((x) => x.videos.some((v) => v.id === query.get('v')));
    return c ? { type: 'text/html; charset=utf-8', body: channelPage(c) } : undefined;
  }
  return undefined;
}

/** An MP3 header and padding: what the fake serves as a video's audio. */
export const fakeMp3 = (bytes: number) => `ID3\u0004${'x'.repeat(Math.max(0, bytes - 4))}`;

const videoId = (n: number, salt = 'v') => `${salt}${String(n).padStart(10, '0')}`.slice(0, 11);

/** A channel of `count` cooking videos, all with captions except every third. */
export function cookingChannel(handle = 'fixturechef', count = 10, channelId = 'UCfixturechef0000000000a'): FakeChannel {
  const topics = ['sourdough bread', 'tomato sauce', 'knife skills', 'roast chicken', 'pasta dough', 'vegetable stock'];
  return {
    handle,
    channelId,
    title: 'Fixture Chef Kitchen',
    videos: Array.from({ length: count }, (_, i) => {
      const topic = topics[i % topics.length];
      return {
        id: videoId(i + 1, handle.slice(0, 1)),
        title: `How to make ${topic} at home`,
        description: `A step by step guide to ${topic} for home cooks.`,
        captions:
          i % 3 === 2
            ? undefined
            : [`Today we are making ${topic}.`, `The secret of good ${topic} is patience and fresh ingredients.`, 'Thanks for watching.'],
      };
    }),
  };
}
