import type { ResourcePermission } from '../../../core/identity/policy';
import type {
  KnowledgeBase,
  KnowledgeBasePatch,
  KnowledgeBaseRepository,
  KnowledgeBaseStats,
} from '../../../core/knowledge/knowledge-base';
import type { DbHandle } from '../db-handle';
import { iso } from './rows';

export const toKnowledgeBase = (r: Record<string, unknown>): KnowledgeBase => ({
  id: r.id as string,
  organizationId: r.organization_id as string,
  name: r.name as string,
  description: (r.description as string) ?? '',
  visibility: r.visibility as KnowledgeBase['visibility'],
  settings: r.settings as KnowledgeBase['settings'],
  createdBy: (r.created_by as string | null) ?? null,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

function toRow(patch: KnowledgeBasePatch) {
  const row: Record<string, unknown> = {};
  if (patch.name !== undefined) row.name = patch.name;
  if (patch.description !== undefined) row.description = patch.description;
  if (patch.visibility !== undefined) row.visibility = patch.visibility;
  if (patch.settings !== undefined) row.settings = JSON.stringify(patch.settings);
  if (patch.updatedAt !== undefined) row.updated_at = patch.updatedAt;
  return row;
}

export class KnexKnowledgeBaseRepository implements KnowledgeBaseRepository {
  constructor(private readonly db: DbHandle) {}

  async create(kb: KnowledgeBase) {
    await this.db()('knowledge_bases').insert({
      id: kb.id,
      organization_id: kb.organizationId,
      created_by: kb.createdBy,
      created_at: kb.createdAt,
      ...toRow(kb),
    });
  }

  async findById(organizationId: string, id: string) {
    const r = await this.db()('knowledge_bases').where({ id, organization_id: organizationId }).first();
    return r ? toKnowledgeBase(r) : null;
  }

  async findAnyById(id: string) {
    const r = await this.db()('knowledge_bases').where({ id }).first();
    return r ? toKnowledgeBase(r) : null;
  }

  async findMany(organizationId: string, ids: string[]) {
    if (ids.length === 0) return [];
    const rows = await this.db()('knowledge_bases').where({ organization_id: organizationId }).whereIn('id', ids);
    return rows.map(toKnowledgeBase);
  }

  async list(organizationId: string, page: { limit: number; offset: number }) {
    const base = () => this.db()('knowledge_bases').where({ organization_id: organizationId });
    const [{ n }] = await base().count({ n: '*' });
    const rows = await base().orderBy('created_at', 'desc').orderBy('id').limit(page.limit).offset(page.offset);
    return { items: rows.map(toKnowledgeBase), total: Number(n) };
  }

  async count(organizationId: string) {
    const [{ n }] = await this.db()('knowledge_bases').where({ organization_id: organizationId }).count({ n: '*' });
    return Number(n);
  }

  async update(organizationId: string, id: string, patch: KnowledgeBasePatch) {
    const row = toRow(patch);
    if (Object.keys(row).length === 0) return this.findById(organizationId, id);
    const [r] = await this.db()('knowledge_bases').where({ id, organization_id: organizationId }).update(row).returning('*');
    return r ? toKnowledgeBase(r) : null;
  }

  async delete(organizationId: string, id: string) {
    return (await this.db()('knowledge_bases').where({ id, organization_id: organizationId }).delete()) === 1;
  }

  async lockOrganization(organizationId: string) {
    await this.db()('organizations').where({ id: organizationId }).forUpdate().first('id');
  }

  async grantsFor(knowledgeBaseId: string, userId: string) {
    const r = await this.db()('knowledge_base_grants').where({ knowledge_base_id: knowledgeBaseId, user_id: userId }).first();
    return (r?.permissions as ResourcePermission[] | undefined) ?? [];
  }

  async setGrant(knowledgeBaseId: string, userId: string, permissions: ResourcePermission[]) {
    if (permissions.length === 0) {
      await this.db()('knowledge_base_grants').where({ knowledge_base_id: knowledgeBaseId, user_id: userId }).delete();
      return;
    }
    await this.db()('knowledge_base_grants')
      .insert({ knowledge_base_id: knowledgeBaseId, user_id: userId, permissions })
      .onConflict(['knowledge_base_id', 'user_id'])
      .merge();
  }

  async stats(organizationId: string, ids: string[]): Promise<KnowledgeBaseStats[]> {
    if (ids.length === 0) return [];
    const db = this.db();
    const [docs, sources] = [
      await db('knowledge_documents')
        .where({ organization_id: organizationId })
        .whereIn('knowledge_base_id', ids)
        .groupBy('knowledge_base_id')
        .select(
          'knowledge_base_id',
          db.raw('count(*)::int as n'),
          db.raw("count(*) filter (where processing_status = 'completed')::int as done"),
        ),
      await db('sources')
        .where({ organization_id: organizationId })
        .whereIn('knowledge_base_id', ids)
        .orderBy('created_at')
        .select('id', 'knowledge_base_id', 'url', 'last_sync_error'),
    ];
    const byKb = new Map<string, KnowledgeBaseStats>(
      ids.map((id) => [id, { knowledgeBaseId: id, documentCount: 0, completedDocumentCount: 0, sourceCount: 0, failedSources: [] }]),
    );
    for (const d of docs as { knowledge_base_id: string; n: number; done: number }[]) {
      const s = byKb.get(d.knowledge_base_id)!;
      s.documentCount = Number(d.n);
      s.completedDocumentCount = Number(d.done);
    }
    for (const src of sources as { id: string; knowledge_base_id: string; url: string; last_sync_error: string | null }[]) {
      const s = byKb.get(src.knowledge_base_id)!;
      s.sourceCount++;
      if (src.last_sync_error) s.failedSources.push({ sourceId: src.id, sourceUrl: src.url, lastSyncError: src.last_sync_error });
    }
    return [...byKb.values()];
  }
}
