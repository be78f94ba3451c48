import { type OptionsValidator, type PluginKindSpec, PluginRegistry } from '../plugin-contract/plugin-registry';
import type { SecretSource } from '../plugin-contract/plugin-secrets';
import { COMMON_SOURCE_OPTIONS, type SourcePlugin } from './source-plugin';

export type { OptionsValidator } from '../plugin-contract/plugin-registry';

const SOURCE_KIND: PluginKindSpec = {
  methods: ['recognizes', 'normalize', 'listItems', 'fetchItem'],
  optional: ['probe', 'detectPriority', 'urls'],
  commonOptions: COMMON_SOURCE_OPTIONS,
  check(p) {
    const problems: string[] = [];
    const caps = p.capabilities as string[];
    if (caps.includes('probe') !== (typeof p.probe === 'function'))
      problems.push('declares the probe capability exactly when it has probe()');
    const urls = p.urls as { normalizes?: unknown; rejects?: unknown } | undefined;
    if (!urls || !Array.isArray(urls.normalizes) || urls.normalizes.length === 0)
      problems.push('needs urls.normalizes: example [input, canonical] URLs (URL recognition is part of the contract)');
    if (p.detectPriority !== undefined && typeof p.detectPriority !== 'number') problems.push('detectPriority must be a number');
    return problems;
  },
};

/**
 * The source types this process knows. Plugins register at boot (see plugins/index.ts); use cases look
 * them up by type or detect the type of a URL.
 */
export class SourceRegistry extends PluginRegistry<'source', SourcePlugin> {
  constructor(validator: OptionsValidator, secrets?: SecretSource) {
    super('source', SOURCE_KIND, validator, secrets);
  }

  /** The most specific plugin with the `detect` capability that recognises the URL (null when none does). */
  detect(url: string): SourcePlugin | null {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return null;
    }
    const ordered = this.all()
      .filter((p) => p.capabilities.includes('detect'))
      .sort((a, b) => (b.detectPriority ?? 0) - (a.detectPriority ?? 0));
    return ordered.find((p) => safeRecognizes(p, parsed)) ?? null;
  }
}

function safeRecognizes(plugin: SourcePlugin, url: URL): boolean {
  try {
    return plugin.recognizes(url);
  } catch {
    return false;
  }
}
