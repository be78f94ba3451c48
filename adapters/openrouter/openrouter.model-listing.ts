import type { ListedModel, Modality, ModelListingSource } from '../../core/models/model';
import { DomainError } from '../../core/shared/errors';

export interface OpenRouterListingOptions {
  /** An OpenRouter-style `GET /models` endpoint (`{data: [{id, name, context_length, pricing, architecture}]}`). */
  url: string;
  apiKey?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

interface Entry {
  id?: unknown;
  name?: unknown;
  context_length?: unknown;
  pricing?: { prompt?: unknown; completion?: unknown };
  architecture?: { input_modalities?: unknown; output_modalities?: unknown; modality?: unknown };
  supported_parameters?: unknown;
}

const MODALITIES: Modality[] = ['text', 'image', 'audio', 'video', 'file'];
const modalities = (v: unknown, fallback: Modality[]): Modality[] =>
  Array.isArray(v) ? v.filter((m): m is Modality => MODALITIES.includes(m as Modality)) : fallback;
const price = (v: unknown) => {
  const n = Number(v ?? 0);
  return Number.isFinite(n) && n >= 0 ? n : 0;
};

/** Reads a provider listing in OpenRouter's shape; entries without an id in provider/name form are skipped. */
export class OpenRouterModelListing implements ModelListingSource {
  readonly id = 'openrouter';
  constructor(private readonly options: OpenRouterListingOptions) {}

  async fetchListing(): Promise<ListedModel[]> {
    const doFetch = this.options.fetch ?? fetch;
    let body: { data?: Entry[] };
    try {
      const res = await doFetch(this.options.url, {
        headers: { accept: 'application/json', ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}) },
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 15_000),
      });
      if (!res.ok) throw new DomainError('UPSTREAM_FAILED', `Model listing answered ${res.status}`);
      body = (await res.json()) as { data?: Entry[] };
    } catch (e) {
      if (e instanceof DomainError) throw e;
      throw new DomainError('UPSTREAM_FAILED', `Model listing could not be fetched: ${(e as Error).message}`);
    }
    if (!Array.isArray(body.data)) throw new DomainError('UPSTREAM_FAILED', 'Model listing has no data array');
    return body.data
      .filter((e) => typeof e.id === 'string' && e.id.includes('/'))
      .map((e) => ({
        id: e.id as string,
        name: typeof e.name === 'string' ? e.name : (e.id as string),
        contextLength: Number.isFinite(Number(e.context_length)) ? Number(e.context_length) : 0,
        promptPricePerToken: price(e.pricing?.prompt),
        completionPricePerToken: price(e.pricing?.completion),
        inputModalities: modalities(e.architecture?.input_modalities, ['text']),
        outputModalities: modalities(e.architecture?.output_modalities, ['text']),
        supportsTools: Array.isArray(e.supported_parameters) && e.supported_parameters.includes('tools'),
      }));
  }
}
