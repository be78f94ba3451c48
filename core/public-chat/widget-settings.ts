/**
 * What an agent's widget channels say about its public lane (docs/contracts.md "Widget and hosted chat"): the origins
 * allowed to call `/api/public/agents/:slug/...` from a browser, and the theme the widget applies.
 *
 * Origins: each active widget channel lists `config.allowedOrigins`, an empty list meaning any. The agent's lane
 * is open to any origin when it has no active widget channel or one of them lists none; otherwise only to the
 * origins listed by any of them (compared as URL origins: scheme, host and port, lowercase).
 */
import type { Channel } from '../channels/channel';
import type { Repositories } from '../ports/repositories';

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** `https://Shop.example/` → `https://shop.example`; not an http(s) origin: null. */
export function normalizeOrigin(value: unknown): string | null {
  if (typeof value !== 'string' || !value || value.length > 300) return null;
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin.toLowerCase() : null;
  } catch {
    return null;
  }
}

const widgetChannels = (repos: Repositories, slug: string): Promise<Channel[]> =>
  typeof slug === 'string' && slug.length <= 200 && SLUG.test(slug)
    ? repos.channels.findActiveForPublicSlug('widget', slug)
    : Promise.resolve([]);

/** The origins allowed on this agent's public lane; null: any origin. */
export async function publicLaneOrigins(repos: Repositories, slug: string): Promise<ReadonlySet<string> | null> {
  const channels = await widgetChannels(repos, slug);
  if (!channels.length) return null;
  const allowed = new Set<string>();
  for (const c of channels) {
    const list = Array.isArray(c.config.allowedOrigins) ? c.config.allowedOrigins : [];
    if (!list.length) return null;
    for (const o of list) {
      const origin = normalizeOrigin(o);
      if (origin) allowed.add(origin);
    }
  }
  return allowed;
}

/** The widget's theme: the oldest active widget channel's `config.theme` that has one (string values only). */
export function widgetTheme(channels: readonly Channel[]): Record<string, string> {
  for (const c of channels) {
    const theme = c.config.theme;
    if (!theme || typeof theme !== 'object' || Array.isArray(theme)) continue;
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(theme)) if (typeof v === 'string') out[k] = v;
    if (Object.keys(out).length) return out;
  }
  return {};
}

/** The theme of the agent published under this slug. */
export const publicWidgetTheme = async (repos: Repositories, slug: string) => widgetTheme(await widgetChannels(repos, slug));
