/**
 * `instagram`: an Instagram profile (`instagram.com/<handle>` on any of its hosts; post and reel URLs are
 * read as their profile). Each recent post is an item (its caption), plus the biography. Public profile data
 * by default; the Graph API when INSTAGRAM_ACCESS_TOKEN is set for that profile. INSTAGRAM_BASE_URL and
 * INSTAGRAM_GRAPH_API_URL move the upstreams (tests point them at a local fake).
 */
import { DomainError } from '../../../core/shared/errors';
import type { SourcePlugin } from '../../../core/sources/source-plugin';
import { maxItems, num, objectSchema } from '../_shared/options';
import { readListing } from './read-profile';
import { isInstagramHost, normalizeInstagramUrl } from './urls';

const plugin: SourcePlugin = {
  kind: 'source',
  type: 'instagram',
  description: 'An Instagram profile; each recent post (its caption) and the biography become documents',
  optionsSchema: objectSchema({ maxItems: maxItems(12, 50) }),
  secrets: [
    {
      name: 'INSTAGRAM_ACCESS_TOKEN',
      description: 'Instagram Graph API token; used for the profile it belongs to, public profile data otherwise',
      required: false,
    },
    {
      name: 'INSTAGRAM_BASE_URL',
      description: 'Base URL of the Instagram site (profile data, post pages); default https://www.instagram.com',
      required: false,
    },
    {
      name: 'INSTAGRAM_GRAPH_API_URL',
      description: 'Base URL of the Instagram Graph API; default https://graph.instagram.com',
      required: false,
    },
  ],
  capabilities: ['detect', 'preview', 'schedule'],
  urls: {
    normalizes: [
      ['https://www.instagram.com/Fixture.Bakes/', 'https://www.instagram.com/fixture.bakes'],
      ['instagram.com/fixture_bakes?igshid=abc&hl=en', 'https://www.instagram.com/fixture_bakes'],
      ['https://m.instagram.com/fixturebakes/reels/', 'https://www.instagram.com/fixturebakes'],
      ['https://www.instagram.com/fixturebakes/p/C7aBcDeFgHi/', 'https://www.instagram.com/fixturebakes'],
      ['https://www.instagram.com/p/C7aBcDeFgHi/?img_index=1', 'https://www.instagram.com/p/C7aBcDeFgHi'],
      ['https://instagram.com/reel/C7aBcDeFgHi', 'https://www.instagram.com/p/C7aBcDeFgHi'],
    ],
    rejects: [
      'https://www.instagram.com/explore/tags/bread/',
      'https://www.instagram.com/accounts/login/',
      'https://example.com/fixturebakes',
    ],
  },
  recognizes: (url) => isInstagramHost(url),
  normalize: (url) => normalizeInstagramUrl(url),
  async listItems(source, ctx) {
    return readListing(ctx, source.url, num(source.options, 'maxItems', 12));
  },
  async fetchItem(item, source, ctx) {
    const listing = await readListing(ctx, source.url, num(source.options, 'maxItems', 12));
    const found = listing.items.find((i) => i.key === item.key)?.item;
    if (!found) throw new DomainError('NOT_FOUND', 'The post is no longer among the profile’s recent posts', { key: item.key });
    return found;
  },
};

export default plugin;
