/**
 * The contract a source type implements (ARCHITECTURE habit 4). A plugin lives in
 * `plugins/sources/<type>/index.ts`, declares its type, how it recognises and normalises a URL, its options
 * schema (JSON schema, validated with ajv when registered and on every use), and how it lists and fetches
 * items. It reaches the network only through the OutboundFetcher in its context (SSRF-guarded, bounded).
 */
import type { OutboundFetcher } from '../ports/outbound-fetcher';

export type JsonSchema = Record<string, unknown>;

/** One readable unit of a source (a page, a post, a product), ready to index. */
export interface SourceItemContent {
  /** Stable within the source across syncs (guid, canonical URL, product id...). */
  key: string;
  url: string;
  title: string;
  /** Plain text (HTML already reduced to its main content). */
  text: string;
  mimeType: string;
  publishedAt?: string;
  author?: string;
  /** Short description (meta description, feed summary); light-scrape shows it. */
  excerpt?: string;
}

/** An item as listed; `item` is set when listing already read its content (feeds, crawled pages). */
export interface ListedItem {
  key: string;
  url: string;
  title?: string;
  item?: SourceItemContent;
}

export interface SourceListing {
  /** The source's own title (feed title, site name), when known. */
  title?: string;
  author?: string;
  items: ListedItem[];
}

/** What a plugin works on: the normalised URL and its options (validated, defaults applied). */
export interface SourceTarget {
  url: string;
  options: Record<string, unknown>;
}

/** Plugin-side logging (never required). */
export type SourceLog = (level: 'debug' | 'info' | 'warn' | 'error', message: string, extra?: unknown) => void;

export interface SourceContext {
  /** The only way out to the network. */
  fetcher: OutboundFetcher;
  /** Time bound of one request (light scrape: 10 s). */
  requestTimeoutMs: number;
  /** Largest body of one response. */
  maxResponseBytes: number;
  log: SourceLog;
}

export interface SourcePlugin {
  /** The `sourceType` users pass (`url`, `rss`, `shopify`...). */
  readonly type: string;
  readonly description: string;
  /**
   * Order in `detect`: higher first. Specific hosts (medium.com, x.com) use the default 0; generic
   * fallbacks go below (website -50, url -100).
   */
  readonly detectPriority?: number;
  /** JSON schema of `options` (an object schema; defaults are applied). */
  readonly optionsSchema: JsonSchema;
  /** Whether this plugin is the natural reader of the URL (no network). */
  recognizes(url: URL): boolean;
  /** The canonical URL of the source; throws DomainError('UNSUPPORTED_URL') when it cannot be read. */
  normalize(url: string): string;
  /**
   * Cheap check when a source is added (fetches the entry point only), so an unreadable, refused or
   * throttled URL fails the request (400 unsupported_url, 503 store_throttled) instead of the later sync.
   */
  probe?(source: SourceTarget, ctx: SourceContext): Promise<void>;
  listItems(source: SourceTarget, ctx: SourceContext): Promise<SourceListing>;
  /** Content of a listed item that came without it. */
  fetchItem(item: ListedItem, source: SourceTarget, ctx: SourceContext): Promise<SourceItemContent>;
}

/** Options every source accepts (spec 4.7); a plugin reads those that apply to it. */
export const COMMON_OPTION_KEYS = ['maxItems', 'maxPages', 'crawlDepth', 'mediaEmbeddingStrategy', 'visualEntityExtraction'] as const;
