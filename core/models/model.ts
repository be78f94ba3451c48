export type Modality = 'text' | 'image' | 'audio' | 'video' | 'file';

export interface ModelCapabilities {
  chat: boolean;
  embeddings: boolean;
  rerank: boolean;
  streaming: boolean;
  tools: boolean;
  inputModalities: Modality[];
  outputModalities: Modality[];
}

/** Spec 2.11. Prices are USD per token. */
export interface Model {
  id: string;
  name: string;
  provider: string;
  contextLength: number;
  promptPricePerToken: number;
  completionPricePerToken: number;
  isActive: boolean;
  isFree: boolean;
  capabilities: ModelCapabilities;
  recommendationScore: number;
  useCases: string[];
  lastSyncedAt: string | null;
}

export interface ModelRepository {
  count(): Promise<number>;
  list(options: { includeInactive: boolean }): Promise<Model[]>;
  findById(id: string): Promise<Model | null>;
  upsert(models: Model[]): Promise<void>;
  /** Marks every model of `provider` whose id is not in `keep` inactive; returns how many changed. */
  deactivateMissing(provider: string, keep: string[]): Promise<number>;
}

/** A provider's model listing (OpenRouter-style), fetched by the sync job. */
export interface ListedModel {
  id: string;
  name: string;
  contextLength: number;
  promptPricePerToken: number;
  completionPricePerToken: number;
  inputModalities: Modality[];
  outputModalities: Modality[];
  supportsTools: boolean;
}

export interface ModelListingSource {
  readonly id: string;
  fetchListing(): Promise<ListedModel[]>;
}
export const MODEL_LISTING_SOURCE = Symbol.for('ModelListingSource');
