/**
 * Driver records to port types. Integers come back as neo4j `Integer` (counts, chunk indexes written with
 * `int()`), floats as numbers; JSON-valued properties (suggestion payloads, pinned entities) are stored as
 * strings because Neo4j properties cannot hold maps.
 */
import { int, isInt, type Node, type Record as Neo4jRecord, type Relationship } from 'neo4j-driver';

import type { GraphEntity, GraphRelationship, GraphSuggestion, PinnedEntity, SuggestionStatus } from '../../core/ports/graph-store';

type Props = Record<string, unknown>;

/** A driver number (Integer or float) as a JS number; null and missing as 0. */
export function toNumber(value: unknown): number {
  if (value === null || value === undefined) return 0;
  if (isInt(value)) return (value as { toNumber(): number }).toNumber();
  if (typeof value === 'bigint') return Number(value);
  return Number(value);
}

/** Integer parameters (SKIP, LIMIT, chunk indexes, counts) must be sent as Integer, not as a float. */
export const integer = (n: number) => int(Math.trunc(n));

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : []);
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** Row shape `e` (the entity node), `mentionCount`, `documentIds`. */
export function entityOf(record: Neo4jRecord): GraphEntity {
  const p = (record.get('e') as Node).properties as Props;
  return {
    id: String(p.id),
    organizationId: String(p.organizationId),
    knowledgeBaseId: String(p.knowledgeBaseId),
    name: String(p.name),
    type: String(p.type),
    aliases: strings(p.aliases),
    description: text(p.description),
    confidence: toNumber(p.confidence),
    hidden: p.hidden === true,
    mentionCount: toNumber(record.get('mentionCount')),
    documentIds: strings(record.get('documentIds')).sort(),
    createdAt: String(p.createdAt),
    updatedAt: String(p.updatedAt),
  };
}

/** Row shape `r` (the RELATED relationship), `sourceEntityId`, `targetEntityId`. */
export function relationshipOf(record: Neo4jRecord): GraphRelationship {
  const p = (record.get('r') as Relationship).properties as Props;
  return {
    id: String(p.id),
    knowledgeBaseId: String(p.knowledgeBaseId),
    sourceEntityId: String(record.get('sourceEntityId')),
    targetEntityId: String(record.get('targetEntityId')),
    type: String(p.type),
    weight: toNumber(p.weight),
    documentId: String(p.documentId),
    chunkIndex: toNumber(p.chunkIndex),
    evidence: text(p.evidence),
    createdAt: String(p.createdAt),
  };
}

function parseJson<T>(value: unknown, fallback: T): T {
  if (typeof value !== 'string') return fallback;
  try {
    return JSON.parse(value) as T;
  } catch {
    return fallback;
  }
}

/** Row shape `s` (the GraphSuggestion node). */
export function suggestionOf(record: Neo4jRecord): GraphSuggestion {
  const p = (record.get('s') as Node).properties as Props;
  return {
    id: String(p.id),
    knowledgeBaseId: String(p.knowledgeBaseId),
    type: String(p.type) as GraphSuggestion['type'],
    status: String(p.status) as SuggestionStatus,
    entityIds: strings(p.entityIds),
    payload: parseJson<Record<string, unknown>>(p.payload, {}),
    reason: String(p.reason ?? ''),
    confidence: toNumber(p.confidence),
    resolvedBy: (text(p.resolvedBy) as GraphSuggestion['resolvedBy']) ?? null,
    createdAt: String(p.createdAt),
    updatedAt: String(p.updatedAt),
  };
}

export const pinnedOf = (value: unknown): PinnedEntity[] => parseJson<PinnedEntity[]>(value, []);
