import type { Actor } from '../identity/actor';
import { requireSuperadmin } from '../identity/policy';
import type { Clock } from '../ports/clock';
import type { Store } from '../ports/store';
import { DomainError } from '../shared/errors';
import { bundledCatalogue } from './bundled-catalogue';
import type { ListedModel, Model, ModelListingSource, ModelRepository } from './model';
import type { ModelAvailability } from './model-availability';

export interface CatalogueDeps {
  store: Store;
  clock: Clock;
  /** Provider listing to sync from; without one a sync refreshes the bundled snapshot. */
  listing: ModelListingSource | null;
  /** Models a configured provider serves now; each listed model carries it as `available`. */
  availability?: ModelAvailability | null;
}

const repo = (d: CatalogueDeps): ModelRepository => d.store.repos.models;

/** Seeds the bundled snapshot into an empty catalogue (first boot, offline). */
export async function ensureCatalogue(d: CatalogueDeps) {
  if ((await repo(d).count()) === 0) await repo(d).upsert(bundledCatalogue());
}

/**
 * Usable now: active, and for a chat model served by a configured chat provider (without a provider key an
 * `openai/...` model is listed but not available). Embedding and rerank models follow `isActive`.
 */
export const isAvailable = (d: CatalogueDeps, m: Model) =>
  m.isActive && (!m.capabilities.chat || !d.availability || d.availability.serves(m.id));

const byScore = (a: Model, b: Model) => b.recommendationScore - a.recommendationScore || a.id.localeCompare(b.id);

export async function listModels(d: CatalogueDeps, includeInactive = false) {
  return (await repo(d).list({ includeInactive })).sort(byScore);
}

export async function getModel(d: CatalogueDeps, id: string) {
  const model = await repo(d).findById(id);
  if (!model) throw new DomainError('NOT_FOUND', `Model ${id} not found`);
  return model;
}

export async function modelsOfProvider(d: CatalogueDeps, provider: string) {
  return (await listModels(d)).filter((m) => m.provider === provider.toLowerCase());
}

export async function freeModels(d: CatalogueDeps) {
  return (await listModels(d)).filter((m) => m.isFree);
}

/** Chat models recommended for a use case (chat, coding, creative, analysis...), best first. */
export async function modelsForUseCase(d: CatalogueDeps, useCase: string) {
  const wanted = useCase.toLowerCase();
  return (await listModels(d)).filter((m) => m.useCases.includes(wanted));
}

export async function searchModels(d: CatalogueDeps, query: string) {
  const terms = query.toLowerCase().split(/\s+/).filter(Boolean);
  return (await listModels(d)).filter((m) => terms.every((t) => `${m.id} ${m.name} ${m.provider}`.toLowerCase().includes(t)));
}

export interface ModelValidation {
  valid: boolean;
  exists: boolean;
  isActive: boolean;
  /** A configured provider serves it now. */
  available: boolean;
  supportsChat: boolean;
  issues: string[];
}

/** Whether an agent may use this model for chat. */
export async function validateModel(d: CatalogueDeps, id: string): Promise<ModelValidation> {
  const model = await repo(d).findById(id);
  const issues: string[] = [];
  if (!model) issues.push('Model is not in the catalogue');
  else {
    if (!model.isActive) issues.push('Model is inactive');
    if (!model.capabilities.chat) issues.push('Model does not support chat');
    else if (d.availability && !d.availability.serves(model.id)) issues.push('No configured provider serves this model');
  }
  return {
    valid: issues.length === 0,
    exists: !!model,
    isActive: !!model?.isActive,
    available: !!model && isAvailable(d, model),
    supportsChat: !!model?.capabilities.chat,
    issues,
  };
}

/** The input types an agent's model accepts (spec 2.3 modelInputModalities); text when unknown. */
export async function inputModalitiesOf(d: CatalogueDeps, id: string): Promise<string[]> {
  const model = await repo(d).findById(id);
  return model?.capabilities.inputModalities.length ? model.capabilities.inputModalities : ['text'];
}

const fromListing = (l: ListedModel, now: string, previous: Model | null): Model => {
  const provider = l.id.split('/')[0];
  return {
    id: l.id,
    name: l.name,
    provider,
    contextLength: l.contextLength,
    promptPricePerToken: l.promptPricePerToken,
    completionPricePerToken: l.completionPricePerToken,
    isActive: true,
    isFree: l.promptPricePerToken === 0 && l.completionPricePerToken === 0,
    capabilities: {
      chat: l.outputModalities.includes('text'),
      embeddings: previous?.capabilities.embeddings ?? false,
      rerank: previous?.capabilities.rerank ?? false,
      streaming: true,
      tools: l.supportsTools,
      inputModalities: l.inputModalities,
      outputModalities: l.outputModalities,
    },
    recommendationScore: previous?.recommendationScore ?? 0.5,
    useCases: previous?.useCases ?? ['chat'],
    lastSyncedAt: now,
  };
};

/** Superadmin: refresh prices and context lengths from the provider listing; vanished models go inactive. */
export async function syncModels(d: CatalogueDeps, actor: Actor) {
  requireSuperadmin(actor);
  const now = d.clock.now().toISOString();
  if (!d.listing) {
    const models = bundledCatalogue().map((m) => ({ ...m, lastSyncedAt: now }));
    await repo(d).upsert(models);
    return { status: 'completed', source: 'bundled', count: models.length, deactivated: 0, syncedAt: now };
  }
  const listed = (await d.listing.fetchListing()).filter((l) => /^[^/\s]+\/\S+$/.test(l.id));
  if (listed.length === 0) throw new DomainError('UPSTREAM_FAILED', 'The model listing was empty; the catalogue was left unchanged');
  return d.store.transaction(async (repos) => {
    const models: Model[] = [];
    for (const l of listed) models.push(fromListing(l, now, await repos.models.findById(l.id)));
    await repos.models.upsert(models);
    let deactivated = 0;
    for (const provider of new Set(models.map((m) => m.provider))) {
      deactivated += await repos.models.deactivateMissing(
        provider,
        models.filter((m) => m.provider === provider).map((m) => m.id),
      );
    }
    return { status: 'completed', source: d.listing!.id, count: models.length, deactivated, syncedAt: now };
  });
}
