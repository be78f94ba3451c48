/**
 * `youtube`: a YouTube channel (`@handle`, `/channel/UC…`, `/c/…`, `/user/…`; video and youtu.be URLs are
 * read as their channel). Each recent video is an item: its captions, else its description. Public feeds by
 * default; the Data API when YOUTUBE_API_KEY is set. YOUTUBE_BASE_URL and YOUTUBE_DATA_API_URL move the
 * upstreams (tests point them at a local fake). YOUTUBE_MEDIA_URL, when set, gives a caption-less video a media
 * URL a provisioning build may transcribe.
 */
import { DomainError } from '../../../core/shared/errors';
import type { SourcePlugin } from '../../../core/sources/source-plugin';
import { maxItems, num, objectSchema } from '../_shared/options';
import { readChannel } from './read-channel';
import { isYouTubeHost, normalizeYouTubeUrl } from './urls';

const plugin: SourcePlugin = {
  kind: 'source',
  type: 'youtube',
  description: 'A YouTube channel; each recent video (captions, else description) becomes a document',
  optionsSchema: objectSchema({ maxItems: maxItems(15, 50) }),
  secrets: [
    { name: 'YOUTUBE_API_KEY', description: 'YouTube Data API key; without it the public channel feed is read', required: false },
    {
      name: 'YOUTUBE_BASE_URL',
      description: 'Base URL of the YouTube site (pages, feeds, captions); default https://www.youtube.com',
      required: false,
    },
    { name: 'YOUTUBE_DATA_API_URL', description: 'Base URL of the YouTube Data API; default https://www.googleapis.com', required: false },
    {
      name: 'YOUTUBE_MEDIA_URL',
      description:
        'Base URL of a media service answering GET <url>/<videoId> with the audio or video of a video (YouTube has no public one); when set, a build transcribes videos without captions; unset: it does not',
      required: false,
    },
  ],
  capabilities: ['detect', 'preview', 'schedule'],
  urls: {
    normalizes: [
      ['https://www.youtube.com/@SomeCreator/videos', 'https://www.youtube.com/@somecreator'],
      ['https://m.youtube.com/channel/UCabcdefghijklmnopqrstuv', 'https://www.youtube.com/channel/UCabcdefghijklmnopqrstuv'],
      ['youtube.com/c/Creator', 'https://www.youtube.com/c/creator'],
      ['https://www.youtube.com/user/OldName?sub=1', 'https://www.youtube.com/user/oldname'],
      ['https://youtu.be/dQw4w9WgXcQ?t=3', 'https://www.youtube.com/watch?v=dQw4w9WgXcQ'],
      ['https://www.youtube.com/watch?v=dQw4w9WgXcQ&list=x', 'https://www.youtube.com/watch?v=dQw4w9WgXcQ'],
    ],
    rejects: ['https://www.youtube.com/feed/trending', 'https://example.com/@someone'],
  },
  recognizes: (url) => isYouTubeHost(url),
  normalize: (url) => normalizeYouTubeUrl(url),
  async listItems(source, ctx) {
    return readChannel(ctx, source.url, num(source.options, 'maxItems', 15));
  },
  async fetchItem(item, source, ctx) {
    const listing = await readChannel(ctx, source.url, num(source.options, 'maxItems', 15));
    const found = listing.items.find((i) => i.key === item.key)?.item;
    if (!found) throw new DomainError('NOT_FOUND', 'The video is no longer among the channel’s recent videos', { key: item.key });
    return found;
  },
};

export default plugin;
