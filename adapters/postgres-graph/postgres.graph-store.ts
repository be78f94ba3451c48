/**
 * GraphStore on the relational Postgres (PGlite or a server): tables of migration 0030_graph. Entity
 * resolution is one lookup in graph_entity_keys; n-hop traversal is a recursive CTE over the relationship
 * indexes; mention counts and document ids are derived from graph_mentions on read. Every write of one call
 * runs in one transaction (PGlite has one connection: nothing inside runs outside `trx`).
 */
import { randomUUID } from 'node:crypto';

import type { Knex } from 'knex';

import type {
  DocumentGraph,
  EntityFilter,
  GraphScope,
  GraphStats,
  GraphStore,
  GraphSuggestion,
  PinnedEntity,
  SuggestionStatus,
} from '../../core/ports/graph-store';
import { iso } from '../postgres/repositories/rows';
import { entitiesWhere, entityPage, neighbourhoodOf, toRelationship } from './postgres.graph-reads';
import { mergeInto, replaceDocumentGraph } from './postgres.graph-writes';

type Row = Record<string, unknown>;

const toSuggestion = (r: Row): GraphSuggestion => ({
  id: r.id as string,
  knowledgeBaseId: r.knowledge_base_id as string,
  type: r.type as GraphSuggestion['type'],
  status: r.status as SuggestionStatus,
  entityIds: (r.entity_ids as string[]) ?? [],
  payload: (r.payload as Record<string, unknown>) ?? {},
  reason: r.reason as string,
  confidence: Number(r.confidence),
  resolvedBy: (r.resolved_by as GraphSuggestion['resolvedBy']) ?? null,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

const like = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export class PostgresGraphStore implements GraphStore {
  readonly id = 'postgres';

  constructor(private readonly db: Knex) {}

  async replaceDocument(scope: GraphScope & { documentId: string }, graph: DocumentGraph, now: string) {
    return this.db.transaction((trx) => replaceDocumentGraph(trx, scope, graph, now));
  }

  async deleteByDocument(scope: GraphScope, documentId: string) {
    await this.db.transaction((trx) =>
      replaceDocumentGraph(trx, { ...scope, documentId }, { entities: [], relationships: [] }, new Date().toISOString()),
    );
  }

  async deleteByKnowledgeBase(scope: GraphScope) {
    await this.db.transaction(async (trx) => {
      await trx('graph_suggestions').where({ knowledge_base_id: scope.knowledgeBaseId, organization_id: scope.organizationId }).delete();
      await trx('graph_pinned_entities')
        .where({ knowledge_base_id: scope.knowledgeBaseId, organization_id: scope.organizationId })
        .delete();
      // mentions, keys and relationships cascade
      await trx('graph_entities').where({ knowledge_base_id: scope.knowledgeBaseId, organization_id: scope.organizationId }).delete();
    });
  }

  async listEntities(scope: GraphScope, f: EntityFilter) {
    const where = ['e.organization_id = ?', 'e.knowledge_base_id = ?', 'NOT e.hidden'];
    const bindings: Knex.RawBinding[] = [scope.organizationId, scope.knowledgeBaseId];
    if (f.type) {
      where.push('e.type = ?');
      bindings.push(f.type);
    }
    if (f.search) {
      where.push(`(e.name ILIKE ? OR e.aliases::text ILIKE ?)`);
      bindings.push(like(f.search), like(f.search));
    }
    if (f.documentId) {
      where.push('EXISTS (SELECT 1 FROM graph_mentions d WHERE d.entity_id = e.id AND d.document_id = ?)');
      bindings.push(f.documentId);
    }
    const w = where.join(' AND ');
    const total = await this.db.raw(`SELECT count(*)::int AS n FROM graph_entities e WHERE ${w}`, bindings);
    const items = await entityPage(this.db, scope, w, bindings, f.limit, f.offset);
    return { items, total: total.rows[0].n as number };
  }

  async getEntities(scope: GraphScope, ids: string[]) {
    if (ids.length === 0) return [];
    return entitiesWhere(this.db, 'SELECT DISTINCT id FROM unnest(?::uuid[]) AS u(id)', 'organization_id = ? AND knowledge_base_id = ?', [
      ids,
      scope.organizationId,
      scope.knowledgeBaseId,
    ]);
  }

  async findByKeys(organizationId: string, knowledgeBaseIds: string[], keys: string[]) {
    if (keys.length === 0 || knowledgeBaseIds.length === 0) return [];
    return entitiesWhere(
      this.db,
      // the (knowledge_base_id, key) primary key: one probe per pair
      `SELECT DISTINCT k.entity_id AS id FROM unnest(?::uuid[]) AS b(kb) CROSS JOIN unnest(?::text[]) AS q(key)
         CROSS JOIN LATERAL (SELECT entity_id FROM graph_entity_keys WHERE knowledge_base_id = b.kb AND key = q.key LIMIT 1) k`,
      'organization_id = ? AND NOT hidden',
      [knowledgeBaseIds, keys, organizationId],
    );
  }

  async relationshipsOf(scope: GraphScope, entityIds: string[], limit: number) {
    if (entityIds.length === 0) return [];
    const r = await this.db.raw(
      `SELECT * FROM graph_relationships WHERE organization_id = ? AND knowledge_base_id = ?
         AND (source_entity_id = ANY(?::uuid[]) OR target_entity_id = ANY(?::uuid[]))
       ORDER BY weight DESC, id LIMIT ?`,
      [scope.organizationId, scope.knowledgeBaseId, entityIds, entityIds, limit],
    );
    return (r.rows as Row[]).map(toRelationship);
  }

  async neighbourhood(scope: GraphScope, seedIds: string[], depth: number, limit: number) {
    if (seedIds.length === 0) return { entities: [], relationships: [] };
    return neighbourhoodOf(this.db, scope, seedIds, depth, limit);
  }

  async stats(scope: GraphScope): Promise<GraphStats> {
    const s = [scope.organizationId, scope.knowledgeBaseId];
    const byType = await this.db.raw(
      'SELECT type, count(*)::int AS n FROM graph_entities WHERE organization_id = ? AND knowledge_base_id = ? AND NOT hidden GROUP BY type',
      s,
    );
    const rels = await this.db.raw(
      'SELECT count(*)::int AS n FROM graph_relationships WHERE organization_id = ? AND knowledge_base_id = ?',
      s,
    );
    const entitiesByType = Object.fromEntries((byType.rows as Row[]).map((r) => [r.type as string, r.n as number]));
    return {
      totalEntities: Object.values(entitiesByType).reduce((a, b) => a + b, 0),
      totalRelationships: rels.rows[0].n as number,
      entitiesByType,
    };
  }

  async orphanIds(scope: GraphScope) {
    const r = await this.db.raw(
      `SELECT e.id FROM graph_entities e WHERE e.organization_id = ? AND e.knowledge_base_id = ? AND NOT e.hidden
         AND NOT EXISTS (SELECT 1 FROM graph_relationships r WHERE r.source_entity_id = e.id)
         AND NOT EXISTS (SELECT 1 FROM graph_relationships r WHERE r.target_entity_id = e.id)`,
      [scope.organizationId, scope.knowledgeBaseId],
    );
    return (r.rows as Row[]).map((x) => x.id as string);
  }

  async rename(scope: GraphScope, id: string, name: string, key: string, now: string) {
    const found = await this.db.transaction(async (trx) => {
      const row = await trx('graph_entities')
        .where({ id, organization_id: scope.organizationId, knowledge_base_id: scope.knowledgeBaseId })
        .first();
      if (!row) return false;
      const aliases = [...new Set([...(row.aliases as string[]), row.name as string])].filter((a) => a !== name);
      await trx('graph_entities')
        .where({ id })
        .update({ name, aliases: JSON.stringify(aliases), updated_at: now });
      await trx.raw(
        `INSERT INTO graph_entity_keys (knowledge_base_id, key, entity_id) VALUES (?, ?, ?)
         ON CONFLICT (knowledge_base_id, key) DO UPDATE SET entity_id = excluded.entity_id`,
        [scope.knowledgeBaseId, key, id],
      );
      return true;
    });
    return found ? ((await this.getEntities(scope, [id]))[0] ?? null) : null;
  }

  async merge(scope: GraphScope, canonicalId: string, mergeIds: string[], now: string) {
    return this.db.transaction((trx) => mergeInto(trx, scope, canonicalId, mergeIds, now));
  }

  async deleteEntities(scope: GraphScope, ids: string[]) {
    if (ids.length === 0) return 0;
    return this.db('graph_entities')
      .where({ organization_id: scope.organizationId, knowledge_base_id: scope.knowledgeBaseId })
      .whereIn('id', ids)
      .delete();
  }

  async getPinned(scope: GraphScope) {
    const row = await this.db('graph_pinned_entities')
      .where({ organization_id: scope.organizationId, knowledge_base_id: scope.knowledgeBaseId })
      .first();
    return (row?.entities as PinnedEntity[]) ?? [];
  }

  async setPinned(scope: GraphScope, entities: PinnedEntity[], now: string) {
    await this.db.raw(
      `INSERT INTO graph_pinned_entities (knowledge_base_id, organization_id, entities, updated_at) VALUES (?, ?, ?::jsonb, ?)
       ON CONFLICT (knowledge_base_id) DO UPDATE SET entities = excluded.entities, updated_at = excluded.updated_at`,
      [scope.knowledgeBaseId, scope.organizationId, JSON.stringify(entities), now],
    );
  }

  async replacePendingSuggestions(scope: GraphScope, suggestions: GraphSuggestion[]) {
    await this.db.transaction(async (trx) => {
      await trx('graph_suggestions')
        .where({ organization_id: scope.organizationId, knowledge_base_id: scope.knowledgeBaseId, status: 'pending' })
        .delete();
      for (let i = 0; i < suggestions.length; i += 500) {
        await trx('graph_suggestions').insert(
          suggestions.slice(i, i + 500).map((s) => ({
            id: s.id,
            organization_id: scope.organizationId,
            knowledge_base_id: scope.knowledgeBaseId,
            type: s.type,
            status: s.status,
            entity_ids: JSON.stringify(s.entityIds),
            payload: JSON.stringify(s.payload),
            reason: s.reason,
            confidence: s.confidence,
            resolved_by: s.resolvedBy,
            created_at: s.createdAt,
            updated_at: s.updatedAt,
          })),
        );
      }
    });
  }

  async listSuggestions(scope: GraphScope, f: { status?: SuggestionStatus[]; type?: string; limit: number; offset: number }) {
    const q = () => {
      const b = this.db('graph_suggestions').where({ organization_id: scope.organizationId, knowledge_base_id: scope.knowledgeBaseId });
      if (f.status?.length) b.whereIn('status', f.status);
      if (f.type) b.where('type', f.type);
      return b;
    };
    const [{ n }] = await q().count<{ n: number }[]>({ n: '*' });
    const rows = await q()
      .orderBy([{ column: 'confidence', order: 'desc' }, { column: 'created_at', order: 'desc' }, 'id'])
      .limit(f.limit)
      .offset(f.offset);
    return { items: (rows as Row[]).map(toSuggestion), total: Number(n) };
  }

  async getSuggestions(scope: GraphScope, ids: string[]) {
    if (ids.length === 0) return [];
    const rows = await this.db('graph_suggestions')
      .where({ organization_id: scope.organizationId, knowledge_base_id: scope.knowledgeBaseId })
      .whereIn('id', ids);
    return (rows as Row[]).map(toSuggestion);
  }

  async setSuggestionStatus(
    scope: GraphScope,
    id: string,
    from: SuggestionStatus[],
    to: SuggestionStatus,
    resolvedBy: 'user' | 'ai' | null,
    now: string,
  ) {
    const rows = await this.db('graph_suggestions')
      .where({ id, organization_id: scope.organizationId, knowledge_base_id: scope.knowledgeBaseId })
      .whereIn('status', from)
      .update({ status: to, resolved_by: resolvedBy, updated_at: now })
      .returning('*');
    return rows.length ? toSuggestion(rows[0] as Row) : null;
  }

  async suggestionCounts(scope: GraphScope) {
    const rows = await this.db('graph_suggestions')
      .where({ organization_id: scope.organizationId, knowledge_base_id: scope.knowledgeBaseId })
      .select('type', 'status')
      .count<{ type: string; status: string; n: number }[]>({ n: '*' })
      .groupBy('type', 'status');
    return rows.map((r) => ({ type: r.type, status: r.status, count: Number(r.n) }));
  }

  async close() {}
}

export const newId = () => randomUUID();
