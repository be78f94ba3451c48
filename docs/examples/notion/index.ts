/**
 * `notion` (worked example of docs/writing-a-plugin.md): a Notion database as a source. Each page of the
 * database is an item; its text is read from the page's blocks. The integration token is a secret
 * (NOTION_API_TOKEN) the platform reads from its configuration and hands over through `ctx.secrets`.
 *
 * It imports types only, so it works as a plugin folder (plugins/sources/notion/index.ts) and as an npm
 * package named in PLUGINS. Errors carry a `code` the platform understands (UNSUPPORTED_URL...).
 */
import type { ListedItem, SourceContext, SourceItemContent, SourcePlugin, SourceTarget } from '../../../core/sources/source-plugin';

const DEFAULT_API = 'https://api.notion.com/v1';
const NOTION_VERSION = '2022-06-28';

/** An error the platform turns into its domain error of that code (400 unsupported_url, 502...). */
const fail = (code: 'UNSUPPORTED_URL' | 'UPSTREAM_FAILED' | 'NOT_FOUND', message: string) => Object.assign(new Error(message), { code });

/** `https://www.notion.so/acme/Handbook-0123abcd...` -> `https://www.notion.so/0123abcd...` (the 32-hex id). */
function normalize(input: string): string {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw fail('UNSUPPORTED_URL', 'The URL is malformed');
  }
  if (!recognizes(url)) throw fail('UNSUPPORTED_URL', 'Not a Notion URL (notion.so or notion.site)');
  const last = url.pathname.split('/').filter(Boolean).pop() ?? '';
  const id = /([0-9a-f]{32})$/i.exec(last.replace(/-/g, ''))?.[1];
  if (!id) throw fail('UNSUPPORTED_URL', 'Give the URL of a Notion database (it ends with its 32-character id)');
  return `https://www.notion.so/${id.toLowerCase()}`;
}

function recognizes(url: URL): boolean {
  const host = url.hostname.toLowerCase();
  return (
    (url.protocol === 'https:' || url.protocol === 'http:') &&
    (host === 'notion.so' || host === 'www.notion.so' || host.endsWith('.notion.site'))
  );
}

const databaseId = (source: SourceTarget) => source.url.slice(source.url.lastIndexOf('/') + 1);

/** One call to the Notion API with the integration token; the answer as JSON. */
async function api(ctx: SourceContext, method: 'GET' | 'POST', path: string, body?: unknown): Promise<Record<string, unknown>> {
  const base = (ctx.secrets.get('NOTION_API_URL') ?? DEFAULT_API).replace(/\/$/, '');
  const res = await ctx.fetcher.fetch({
    url: `${base}${path}`,
    method,
    headers: {
      authorization: `Bearer ${ctx.secrets.getRequired('NOTION_API_TOKEN')}`,
      'notion-version': NOTION_VERSION,
      'content-type': 'application/json',
      accept: 'application/json',
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    timeoutMs: ctx.requestTimeoutMs,
    maxBytes: ctx.maxResponseBytes,
  });
  if (res.status === 404) throw fail('UNSUPPORTED_URL', 'The database was not found, or is not shared with the integration');
  if (res.status === 401 || res.status === 403) throw fail('UPSTREAM_FAILED', `Notion refused the integration token (HTTP ${res.status})`);
  if (res.status < 200 || res.status > 299) throw fail('UPSTREAM_FAILED', `Notion answered HTTP ${res.status}`);
  return JSON.parse(res.body.toString('utf8')) as Record<string, unknown>;
}

type RichText = { plain_text?: string }[];
const plain = (parts: RichText | undefined) => (parts ?? []).map((p) => p.plain_text ?? '').join('');

interface NotionPage {
  id: string;
  url?: string;
  last_edited_time?: string;
  properties?: Record<string, { type?: string; title?: RichText }>;
}

const titleOf = (page: NotionPage) => plain(Object.values(page.properties ?? {}).find((p) => p.type === 'title')?.title) || 'Untitled';

async function readPage(ctx: SourceContext, item: ListedItem): Promise<SourceItemContent> {
  const blocks = (await api(ctx, 'GET', `/blocks/${item.key}/children?page_size=100`)).results as Record<string, unknown>[];
  const lines = blocks.map((b) => plain((b[String(b.type)] as { rich_text?: RichText } | undefined)?.rich_text)).filter(Boolean);
  return { key: item.key, url: item.url, title: item.title ?? 'Untitled', text: lines.join('\n'), mimeType: 'text/plain' };
}

const plugin: SourcePlugin = {
  kind: 'source',
  type: 'notion',
  description: 'A Notion database: each page shared with the integration becomes a document',
  optionsSchema: {
    type: 'object',
    properties: { maxItems: { type: 'integer', minimum: 1, maximum: 100, default: 50, description: 'Most pages read per sync' } },
  },
  secrets: [
    { name: 'NOTION_API_TOKEN', description: 'Internal integration token of the Notion workspace' },
    { name: 'NOTION_API_URL', description: 'Notion API endpoint (default https://api.notion.com/v1), for a proxy', required: false },
  ],
  capabilities: ['probe', 'detect', 'schedule'],
  urls: {
    normalizes: [
      [
        'https://www.notion.so/acme/Handbook-0123456789abcdef0123456789ABCDEF?v=1',
        'https://www.notion.so/0123456789abcdef0123456789abcdef',
      ],
    ],
    rejects: ['https://www.notion.so/acme/no-id-here', 'https://example.com/0123456789abcdef0123456789abcdef'],
  },
  recognizes,
  normalize,
  async probe(source, ctx) {
    await api(ctx, 'GET', `/databases/${databaseId(source)}`);
  },
  async listItems(source, ctx) {
    const maxItems = typeof source.options.maxItems === 'number' ? source.options.maxItems : 50;
    const answer = await api(ctx, 'POST', `/databases/${databaseId(source)}/query`, { page_size: maxItems });
    const pages = (answer.results as NotionPage[]).slice(0, maxItems);
    return { items: pages.map((p) => ({ key: p.id, url: p.url ?? `https://www.notion.so/${p.id.replace(/-/g, '')}`, title: titleOf(p) })) };
  },
  fetchItem: (item, _source, ctx) => readPage(ctx, item),
};

export default plugin;
