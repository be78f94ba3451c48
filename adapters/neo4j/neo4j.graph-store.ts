/**
 * GraphStore on Neo4j (GRAPH_STORE=neo4j): one database per deployment, organization and knowledge base as
 * properties of every node and relationship (indexed), parameterised Cypher only (neo4j.statements.ts).
 * Mention counts and document ids are derived from the Mention nodes on read; n-hop neighbourhoods are a
 * breadth-first walk, one statement per hop, so the depth never has to be written into Cypher text.
 */
import type {
  DocumentGraph,
  EntityFilter,
  GraphEntity,
  GraphScope,
  GraphStats,
  GraphStore,
  GraphSuggestion,
  PinnedEntity,
  SuggestionStatus,
} from '../../core/ports/graph-store';
import { type CypherDriver, CypherRunner } from './neo4j.cypher-runner';
import { mergeInto, replaceDocumentGraph } from './neo4j.graph-writes';
import { entityOf, integer, pinnedOf, relationshipOf, suggestionOf, toNumber } from './neo4j.records';
import { CYPHER, SCHEMA } from './neo4j.statements';

export interface Neo4jGraphStoreOptions {
  driver: CypherDriver;
  /** Database name (NEO4J_DATABASE); the server's default database when absent. */
  database?: string;
  /** Close the driver on close() (true when the adapter built it). */
  ownsDriver?: boolean;
}

const tenant = (scope: GraphScope) => ({ organizationId: scope.organizationId, knowledgeBaseId: scope.knowledgeBaseId });

export class Neo4jGraphStore implements GraphStore {
  readonly id = 'neo4j';
  private readonly db: CypherRunner;

  constructor(private readonly options: Neo4jGraphStoreOptions) {
    this.db = new CypherRunner(options.driver, options.database);
  }

  /** Creates the constraints and indexes (idempotent), each in its own transaction as Neo4j requires for schema changes. */
  async start(): Promise<void> {
    for (const statement of SCHEMA) await this.db.write(async (tx) => void (await tx.run(statement, {})));
  }

  async replaceDocument(scope: GraphScope & { documentId: string }, graph: DocumentGraph, now: string) {
    return this.db.write((tx) => replaceDocumentGraph(tx, scope, graph, now));
  }

  async deleteByDocument(scope: GraphScope, documentId: string) {
    await this.db.write((tx) =>
      replaceDocumentGraph(tx, { ...scope, documentId }, { entities: [], relationships: [] }, new Date().toISOString()),
    );
  }

  async deleteByKnowledgeBase(scope: GraphScope) {
    await this.db.write(async (tx) => {
      for (const statement of [
        CYPHER.deleteKbSuggestions,
        CYPHER.deleteKbPinned,
        CYPHER.deleteKbMentions,
        CYPHER.deleteKbKeys,
        CYPHER.deleteKbEntities,
      ])
        await tx.run(statement, tenant(scope));
    });
  }

  async listEntities(scope: GraphScope, f: EntityFilter) {
    const params = {
      ...tenant(scope),
      type: f.type || null,
      search: f.search ? f.search.toLowerCase() : null,
      documentId: f.documentId || null,
    };
    return this.db.read(async (tx) => {
      const total = (await tx.run(CYPHER.countEntities, params)).records[0];
      const page = await tx.run(CYPHER.pageEntities, { ...params, offset: integer(f.offset), limit: integer(f.limit) });
      return { items: page.records.map(entityOf), total: toNumber(total?.get('total')) };
    });
  }

  async getEntities(scope: GraphScope, ids: string[]) {
    if (ids.length === 0) return [];
    return (await this.db.query(CYPHER.entitiesById, { ...tenant(scope), ids })).map(entityOf);
  }

  async findByKeys(organizationId: string, knowledgeBaseIds: string[], keys: string[]) {
    if (keys.length === 0 || knowledgeBaseIds.length === 0) return [];
    return (await this.db.query(CYPHER.entitiesByKeys, { organizationId, knowledgeBaseIds, keys })).map(entityOf);
  }

  async relationshipsOf(scope: GraphScope, entityIds: string[], limit: number) {
    if (entityIds.length === 0) return [];
    const records = await this.db.query(CYPHER.relationshipsTouching, { ...tenant(scope), ids: entityIds, limit: integer(limit) });
    return records.map(relationshipOf);
  }

  async neighbourhood(scope: GraphScope, seedIds: string[], depth: number, limit: number) {
    if (seedIds.length === 0) return { entities: [], relationships: [] };
    const s = tenant(scope);
    const ids = await this.db.read(async (tx) => {
      const seeds = (await tx.run(CYPHER.existingIds, { ...s, ids: seedIds })).records.map((r) => r.get('id') as string).sort();
      const seen = new Set(seeds.slice(0, limit));
      let frontier = [...seen];
      // breadth-first, nearest first and by id within a hop (the order of the Postgres adapter)
      for (let hop = 0; hop < depth && frontier.length && seen.size < limit; hop++) {
        const next = (await tx.run(CYPHER.neighbourIds, { ...s, frontier })).records
          .map((r) => r.get('id') as string)
          .filter((id) => !seen.has(id))
          .sort();
        frontier = next.slice(0, limit - seen.size);
        for (const id of frontier) seen.add(id);
      }
      return [...seen];
    });
    const [entities, rels] = await Promise.all([
      this.getEntities(scope, ids),
      this.db.query(CYPHER.relationshipsWithin, { ...s, ids, limit: integer(limit * 4) }),
    ]);
    return { entities, relationships: rels.map(relationshipOf) };
  }

  async stats(scope: GraphScope): Promise<GraphStats> {
    return this.db.read(async (tx) => {
      const byType = await tx.run(CYPHER.entitiesByType, tenant(scope));
      const rels = await tx.run(CYPHER.countRelationships, tenant(scope));
      const entitiesByType = Object.fromEntries(byType.records.map((r) => [r.get('type') as string, toNumber(r.get('n'))]));
      return {
        totalEntities: Object.values(entitiesByType).reduce((a, b) => a + b, 0),
        totalRelationships: toNumber(rels.records[0]?.get('n')),
        entitiesByType,
      };
    });
  }

  async orphanIds(scope: GraphScope) {
    return (await this.db.query(CYPHER.orphanIds, tenant(scope))).map((r) => r.get('id') as string);
  }

  async rename(scope: GraphScope, id: string, name: string, key: string, now: string): Promise<GraphEntity | null> {
    const s = tenant(scope);
    const found = await this.db.write(async (tx) => {
      const [row] = (await tx.run(CYPHER.entityNames, { ...s, ids: [id] })).records;
      if (!row) return false;
      const old = row.get('name') as string;
      const aliases = [...new Set([...((row.get('aliases') as string[] | null) ?? []), old])].filter((a) => a !== name);
      await tx.run(CYPHER.renameEntity, { ...s, id, name, aliases, now });
      await tx.run(CYPHER.pointKey, { ...s, key, id });
      return true;
    });
    return found ? ((await this.getEntities(scope, [id]))[0] ?? null) : null;
  }

  async merge(scope: GraphScope, canonicalId: string, mergeIds: string[], now: string) {
    return this.db.write((tx) => mergeInto(tx, scope, canonicalId, mergeIds, now));
  }

  async deleteEntities(scope: GraphScope, ids: string[]) {
    if (ids.length === 0) return 0;
    return this.db.write(async (tx) => toNumber((await tx.run(CYPHER.deleteEntities, { ...tenant(scope), ids })).records[0]?.get('n')));
  }

  async getPinned(scope: GraphScope): Promise<PinnedEntity[]> {
    const [row] = await this.db.query(CYPHER.getPinned, tenant(scope));
    return row ? pinnedOf(row.get('entities')) : [];
  }

  async setPinned(scope: GraphScope, entities: PinnedEntity[], now: string) {
    await this.db.write(async (tx) => void (await tx.run(CYPHER.setPinned, { ...tenant(scope), entities: JSON.stringify(entities), now })));
  }

  async replacePendingSuggestions(scope: GraphScope, suggestions: GraphSuggestion[]) {
    const s = tenant(scope);
    await this.db.write(async (tx) => {
      await tx.run(CYPHER.deleteSuggestionsWithStatus, { ...s, status: 'pending' });
      for (let i = 0; i < suggestions.length; i += 500) {
        const rows = suggestions.slice(i, i + 500).map((x) => ({
          id: x.id,
          type: x.type,
          status: x.status,
          entityIds: x.entityIds,
          payload: JSON.stringify(x.payload),
          reason: x.reason,
          confidence: x.confidence,
          resolvedBy: x.resolvedBy,
          createdAt: x.createdAt,
          updatedAt: x.updatedAt,
        }));
        await tx.run(CYPHER.createSuggestions, { ...s, rows });
      }
    });
  }

  async listSuggestions(scope: GraphScope, f: { status?: SuggestionStatus[]; type?: string; limit: number; offset: number }) {
    const params = { ...tenant(scope), statuses: f.status?.length ? f.status : null, type: f.type || null };
    return this.db.read(async (tx) => {
      const total = (await tx.run(CYPHER.countSuggestions, params)).records[0];
      const page = await tx.run(CYPHER.pageSuggestions, { ...params, offset: integer(f.offset), limit: integer(f.limit) });
      return { items: page.records.map(suggestionOf), total: toNumber(total?.get('total')) };
    });
  }

  async getSuggestions(scope: GraphScope, ids: string[]) {
    if (ids.length === 0) return [];
    return (await this.db.query(CYPHER.suggestionsById, { ...tenant(scope), ids })).map(suggestionOf);
  }

  async setSuggestionStatus(
    scope: GraphScope,
    id: string,
    from: SuggestionStatus[],
    to: SuggestionStatus,
    resolvedBy: 'user' | 'ai' | null,
    now: string,
  ) {
    const [row] = await this.db.write(
      async (tx) => (await tx.run(CYPHER.setSuggestionStatus, { ...tenant(scope), id, from, to, resolvedBy, now })).records,
    );
    return row ? suggestionOf(row) : null;
  }

  async suggestionCounts(scope: GraphScope) {
    const records = await this.db.query(CYPHER.suggestionCounts, tenant(scope));
    return records.map((r) => ({ type: r.get('type') as string, status: r.get('status') as string, count: toNumber(r.get('count')) }));
  }

  async close() {
    if (this.options.ownsDriver) await this.options.driver.close();
  }
}
