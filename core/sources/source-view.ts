import type { KnowledgeSource } from '../knowledge/source';

/** A source as the API shows it. */
export interface SourceView {
  id: string;
  knowledgeBaseId: string;
  url: string;
  sourceType: string;
  options: Record<string, unknown>;
  syncEnabled: boolean;
  syncFrequencyMinutes: number;
  lastSyncedAt: string | null;
  nextSyncAt: string | null;
  /** `pending` (never synced), `healthy` or `failing`. */
  syncHealth: string;
  lastSyncError: string | null;
  /** Items recorded by the last syncs (each one a document). */
  itemCount: number;
  createdAt: string;
  updatedAt: string;
}

export const toSourceView = (s: KnowledgeSource, itemCount: number): SourceView => ({
  id: s.id,
  knowledgeBaseId: s.knowledgeBaseId,
  url: s.url,
  sourceType: s.sourceType,
  options: s.options,
  syncEnabled: s.syncEnabled,
  syncFrequencyMinutes: s.syncFrequencyMinutes,
  lastSyncedAt: s.lastSyncedAt,
  nextSyncAt: s.nextSyncAt,
  syncHealth: s.syncHealth,
  lastSyncError: s.lastSyncError,
  itemCount,
  createdAt: s.createdAt,
  updatedAt: s.updatedAt,
});

export const addMinutes = (iso: string, minutes: number) => new Date(Date.parse(iso) + minutes * 60_000).toISOString();
