/**
 * The contract a source type implements (docs/CONVENTIONS.md): the plugin manifest every kind shares
 * (core/plugin-contract/plugin-manifest.ts: type, description, options schema, secrets, capabilities) plus how it
 * recognises and normalises a URL, and how it lists and fetches items. A plugin lives in
 * `plugins/sources/<type>/index.ts` or in an npm package named in PLUGINS. It reaches the network only
 * through the OutboundFetcher of its context (SSRF-guarded, bounded) and reads HTML through its HtmlReader.
 */
import type { PluginManifest } from '../plugin-contract/plugin-manifest';
import type { PluginSecrets } from '../plugin-contract/plugin-secrets';
import type { HtmlReader } from '../ports/html-reader';
import type { OutboundFetcher } from '../ports/outbound-fetcher';

export type { JsonSchema } from '../plugin-contract/plugin-manifest';

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
  /**
   * Audio or video of an item that has no captions or transcript of its own (a caption-less video or reel).
   * A provisioning build may transcribe it when a transcription model is configured; syncs ignore it.
   */
  mediaUrl?: string;
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
  /** Page and fragment text, as uploaded HTML files are read. */
  html: HtmlReader;
  /** The secrets this plugin declared, from configuration. */
  secrets: PluginSecrets;
  /** Time bound of one request (light scrape: 10 s). */
  requestTimeoutMs: number;
  /** Largest body of one response. */
  maxResponseBytes: number;
  /** Logging; the plugin's secret values are taken out of every line. */
  log: SourceLog;
}

/** URLs a plugin declares about itself; the source-plugin conformance suite checks them. */
export interface SourceUrlExamples {
  /** Each input normalises to its expected canonical URL, which the plugin also recognises. */
  normalizes: readonly (readonly [input: string, canonical: string])[];
  /** URLs the plugin refuses (normalize throws UNSUPPORTED_URL). */
  rejects?: readonly string[];
}

export interface SourcePlugin extends PluginManifest<'source'> {
  /**
   * Order in `detect`: higher first. Specific hosts (medium.com, x.com) use the default 0; generic
   * fallbacks go below (website -50, url -100).
   */
  readonly detectPriority?: number;
  /** URL recognition is part of the contract: example URLs, checked by the conformance suite. */
  readonly urls: SourceUrlExamples;
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

/**
 * Options every source accepts (spec 4.7), declared once: merged into each plugin's options schema (a
 * plugin narrows them by declaring the same key) and so into the request schema of the endpoint.
 */
export const COMMON_SOURCE_OPTIONS = {
  maxItems: { type: 'integer', minimum: 1, maximum: 10000, description: 'Most items read per sync' },
  maxPages: { type: 'integer', minimum: 1, maximum: 200, description: 'Most pages read per sync' },
  crawlDepth: { type: 'integer', minimum: 0, maximum: 3, description: 'Link levels followed from the start page (0 = single page)' },
  mediaEmbeddingStrategy: { enum: ['native', 'transcription'], description: 'How media would be embedded (kept on the source)' },
  visualEntityExtraction: { type: 'boolean', description: 'Whether images would be mined for entities (kept on the source)' },
} as const;
