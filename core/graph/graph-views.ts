import type { GraphEntity, GraphRelationship } from '../ports/graph-store';

/** Spec 2.7 entity, plus confidence and description. */
export const toEntityView = (e: GraphEntity) => ({
  id: e.id,
  knowledgeBaseId: e.knowledgeBaseId,
  name: e.name,
  type: e.type,
  aliases: e.aliases,
  description: e.description,
  confidence: e.confidence,
  mentionCount: e.mentionCount,
  documentIds: e.documentIds,
  createdAt: e.createdAt,
  updatedAt: e.updatedAt,
});

/** Spec 2.7 relationship, plus its chunk (provenance). */
export const toRelationshipView = (r: GraphRelationship) => ({
  id: r.id,
  sourceEntityId: r.sourceEntityId,
  targetEntityId: r.targetEntityId,
  type: r.type,
  weight: r.weight,
  documentId: r.documentId,
  chunkIndex: r.chunkIndex,
  createdAt: r.createdAt,
});
