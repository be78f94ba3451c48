import type { KnowledgeSource, KnowledgeSourceRepository, SourceItem, SourcePatch } from '../../../core/knowledge/source';
import type { DbHandle } from '../db-handle';
import { iso, isoOrNull } from './rows';

const toSource = (r: Record<string, unknown>): KnowledgeSource => ({
  id: r.id as string,
  organizationId: r.organization_id as string,
  knowledgeBaseId: r.knowledge_base_id as string,
  url: r.url as string,
  sourceType: r.source_type as string,
  options: (r.options as Record<string, unknown>) ?? {},
  syncEnabled: r.sync_enabled as boolean,
  syncFrequencyMinutes: Number(r.sync_frequency_minutes),
  lastSyncedAt: isoOrNull(r.last_synced_at),
  nextSyncAt: isoOrNull(r.next_sync_at),
  lastSyncError: (r.last_sync_error as string | null) ?? null,
  syncHealth: r.sync_health as string,
  createdBy: (r.created_by as string | null) ?? null,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

const columns: Record<keyof SourcePatch, string> = {
  url: 'url',
  options: 'options',
  syncEnabled: 'sync_enabled',
  syncFrequencyMinutes: 'sync_frequency_minutes',
  lastSyncedAt: 'last_synced_at',
  nextSyncAt: 'next_sync_at',
  lastSyncError: 'last_sync_error',
  syncHealth: 'sync_health',
  updatedAt: 'updated_at',
};

function toRow(patch: SourcePatch) {
  const row: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(patch)) {
    const col = columns[k as keyof SourcePatch];
    if (col && v !== undefined) row[col] = k === 'options' ? JSON.stringify(v) : v;
  }
  return row;
}

const toItem = (r: Record<string, unknown>): SourceItem => ({
  sourceId: r.source_id as string,
  itemKey: r.item_key as string,
  contentHash: r.content_hash as string,
  documentId: (r.document_id as string | null) ?? null,
});

export class KnexKnowledgeSourceRepository implements KnowledgeSourceRepository {
  constructor(private readonly db: DbHandle) {}

  async create(s: KnowledgeSource) {
    await this.db()('sources').insert({
      id: s.id,
      organization_id: s.organizationId,
      knowledge_base_id: s.knowledgeBaseId,
      source_type: s.sourceType,
      created_by: s.createdBy,
      created_at: s.createdAt,
      ...toRow(s),
    });
  }

  async findById(organizationId: string, id: string) {
    const r = await this.db()('sources').where({ id, organization_id: organizationId }).first();
    return r ? toSource(r) : null;
  }

  async listForKnowledgeBase(organizationId: string, knowledgeBaseId: string) {
    const rows = await this.db()('sources')
      .where({ organization_id: organizationId, knowledge_base_id: knowledgeBaseId })
      .orderBy('created_at')
      .orderBy('id');
    return rows.map(toSource);
  }

  async listDue(now: string, limit: number) {
    const rows = await this.db()('sources')
      .where({ sync_enabled: true })
      .where('next_sync_at', '<=', now)
      .orderBy('next_sync_at')
      .limit(limit);
    return rows.map(toSource);
  }

  async update(organizationId: string, id: string, patch: SourcePatch) {
    const row = toRow(patch);
    if (Object.keys(row).length === 0) return this.findById(organizationId, id);
    const [r] = await this.db()('sources').where({ id, organization_id: organizationId }).update(row).returning('*');
    return r ? toSource(r) : null;
  }

  async delete(organizationId: string, id: string) {
    return (await this.db()('sources').where({ id, organization_id: organizationId }).delete()) === 1;
  }

  async findItem(sourceId: string, itemKey: string) {
    const r = await this.db()('source_items').where({ source_id: sourceId, item_key: itemKey }).first();
    return r ? toItem(r) : null;
  }

  async listItems(sourceId: string) {
    const rows = await this.db()('source_items').where({ source_id: sourceId }).orderBy('item_key');
    return rows.map(toItem);
  }

  async putItem(item: SourceItem) {
    await this.db()('source_items')
      .insert({ source_id: item.sourceId, item_key: item.itemKey, content_hash: item.contentHash, document_id: item.documentId })
      .onConflict(['source_id', 'item_key'])
      .merge(['content_hash', 'document_id']);
  }

  async deleteItem(sourceId: string, itemKey: string) {
    return (await this.db()('source_items').where({ source_id: sourceId, item_key: itemKey }).delete()) === 1;
  }
}
