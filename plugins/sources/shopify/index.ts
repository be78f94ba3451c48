/**
 * `shopify`: a Shopify store's public catalogue (`/products.json?limit=250&page=N`): each product is an item
 * with title, vendor, type, tags, variants with prices and availability and its description as text;
 * plus the store's brand pages (about, FAQ, shipping, returns...) as the `website` source reads them.
 * A 429 from the store fails with STORE_THROTTLED (503 store_throttled at the edge).
 */
import type { HtmlReader } from '../../../core/ports/html-reader';
import { DomainError } from '../../../core/shared/errors';
import type { ListedItem, SourceContext, SourcePlugin, SourceTarget } from '../../../core/sources/source-plugin';
import { crawl, isBrandLink, pageItem } from '../_shared/crawl';
import { get, statusError } from '../_shared/fetch';
import { isoDate } from '../_shared/html-page';
import { maxItems, maxPages, num, objectSchema } from '../_shared/options';
import { canonicalUrl, hostIs, parseHttpUrl, unsupported } from '../_shared/url';

export const PAGE_SIZE = 250;
const throttled = () => new DomainError('STORE_THROTTLED', 'The store is rate-limiting requests; try again in a few minutes');

interface Variant {
  id?: number;
  title?: string;
  price?: string | number;
  compare_at_price?: string | number | null;
  available?: boolean;
  sku?: string | null;
}
interface Product {
  id: number | string;
  title?: string;
  handle?: string;
  body_html?: string | null;
  vendor?: string;
  product_type?: string;
  tags?: string[] | string;
  published_at?: string;
  variants?: Variant[];
  options?: { name?: string; values?: string[] }[];
}

async function productsPage(ctx: SourceContext, origin: string, page: number, limit = PAGE_SIZE): Promise<Product[]> {
  const url = `${origin}/products.json?limit=${limit}&page=${page}`;
  const fetched = await get(ctx, url, 'application/json');
  if (fetched.status === 429) throw throttled();
  if (fetched.status === 404) throw unsupported('This is not a Shopify store, or its catalogue is not public (no /products.json)', { url });
  if (fetched.status < 200 || fetched.status > 299) throw statusError(fetched, 'The store');
  let data: { products?: unknown };
  try {
    data = JSON.parse(fetched.text);
  } catch {
    throw unsupported('The store did not answer /products.json with JSON; is it a Shopify store?', { url });
  }
  if (!Array.isArray(data.products)) throw unsupported('The store answer has no product list; is it a Shopify store?', { url });
  return data.products as Product[];
}

const tagsOf = (p: Product) => (Array.isArray(p.tags) ? p.tags : (p.tags ?? '').split(',')).map((t) => t.trim()).filter(Boolean);
const price = (v: string | number | null | undefined) => (v === null || v === undefined || v === '' ? null : Number(v));

export function productText(p: Product, html: HtmlReader): string {
  const variants = p.variants ?? [];
  const prices = variants.map((v) => price(v.price)).filter((n): n is number => n !== null && Number.isFinite(n));
  const anyAvailable = variants.some((v) => v.available !== false);
  const lines = [p.title ?? ''];
  if (p.vendor) lines.push(`Vendor: ${p.vendor}`);
  if (p.product_type) lines.push(`Type: ${p.product_type}`);
  const tags = tagsOf(p);
  if (tags.length) lines.push(`Tags: ${tags.join(', ')}`);
  if (prices.length) {
    const [min, max] = [Math.min(...prices), Math.max(...prices)];
    lines.push(`Price: ${min === max ? min.toFixed(2) : `${min.toFixed(2)} - ${max.toFixed(2)}`}`);
  }
  if (variants.length) lines.push(`Availability: ${anyAvailable ? 'in stock' : 'sold out'}`);
  for (const option of p.options ?? []) {
    if (option.name && option.values?.length && !(option.values.length === 1 && option.values[0] === 'Default Title'))
      lines.push(`${option.name}: ${option.values.join(', ')}`);
  }
  if (variants.length > 1 || (variants[0] && variants[0].title && variants[0].title !== 'Default Title')) {
    lines.push('Variants:');
    for (const v of variants) {
      const compare = price(v.compare_at_price);
      const p0 = price(v.price);
      lines.push(
        `- ${v.title ?? 'Variant'}: ${p0 !== null ? p0.toFixed(2) : 'no price'}${compare && p0 !== null && compare > p0 ? ` (was ${compare.toFixed(2)})` : ''}, ${v.available === false ? 'sold out' : 'available'}${v.sku ? ` (SKU ${v.sku})` : ''}`,
      );
    }
  }
  const body = html.fragmentText(p.body_html ?? '');
  return body ? `${lines.join('\n')}\n\n${body}` : lines.join('\n');
}

function productItem(origin: string, p: Product, html: HtmlReader): ListedItem {
  const key = `product:${p.id}`;
  const url = p.handle ? `${origin}/products/${p.handle}` : origin;
  const title = p.title?.trim() || `Product ${p.id}`;
  const published = isoDate(p.published_at);
  return {
    key,
    url,
    title,
    item: {
      key,
      url,
      title,
      text: productText(p, html),
      mimeType: 'text/plain',
      ...(published ? { publishedAt: published } : {}),
      ...(p.vendor ? { author: p.vendor } : {}),
    },
  };
}

async function listProducts(ctx: SourceContext, origin: string, limit: number): Promise<ListedItem[]> {
  const items: ListedItem[] = [];
  for (let page = 1; items.length < limit; page++) {
    const products = await productsPage(ctx, origin, page);
    for (const p of products) if (items.length < limit && p && p.id !== undefined) items.push(productItem(origin, p, ctx.html));
    if (products.length < PAGE_SIZE) break;
  }
  return items;
}

async function listBrandPages(ctx: SourceContext, source: SourceTarget): Promise<ListedItem[]> {
  const pagesLimit = num(source.options, 'maxPages', 10);
  if (source.options.includePages === false || pagesLimit === 0) return [];
  try {
    const pages = await crawl(ctx, `${source.url}/`, {
      depth: 1,
      maxPages: pagesLimit,
      follow: (link) => isBrandLink(link) && !/^\/(products|collections|cart|account|search)(\/|$)/.test(link.url.pathname),
    });
    return pages
      .filter((p) => p.text)
      .map((p) => ({ key: `page:${p.url}`, url: p.url, title: p.title, item: pageItem(p, `page:${p.url}`) }));
  } catch (error) {
    if ((error as DomainError).code === 'STORE_THROTTLED') throw error;
    ctx.log('warn', `shopify ${source.url}: brand pages skipped: ${(error as Error).message}`);
    return [];
  }
}

const plugin: SourcePlugin = {
  kind: 'source',
  type: 'shopify',
  description: 'A Shopify store: every product of the public catalogue (prices, variants, availability) plus the brand pages',
  optionsSchema: objectSchema({
    maxItems: maxItems(1000, 10000),
    maxPages: maxPages(10, 50),
    includePages: { type: 'boolean', default: true },
  }),
  capabilities: ['probe', 'detect', 'preview', 'schedule'],
  urls: {
    normalizes: [['https://Shop-Name.myshopify.com/collections/all', 'https://shop-name.myshopify.com']],
    rejects: ['ftp://shop-name.myshopify.com/'],
  },
  recognizes: (url) => hostIs(url, 'myshopify.com'),
  normalize: (url) => canonicalUrl(new URL('/', parseHttpUrl(url))).replace(/\/$/, ''),
  async probe(source, ctx) {
    await productsPage(ctx, source.url, 1, 1);
  },
  async listItems(source, ctx) {
    const products = await listProducts(ctx, source.url, num(source.options, 'maxItems', 1000));
    const pages = await listBrandPages(ctx, source);
    return { items: [...products, ...pages] };
  },
  async fetchItem(item, source, ctx) {
    const listing = await plugin.listItems(source, ctx);
    const found = listing.items.find((i) => i.key === item.key)?.item;
    if (!found) throw new DomainError('NOT_FOUND', 'The product is no longer in the catalogue', { key: item.key });
    return found;
  },
};

export default plugin;
