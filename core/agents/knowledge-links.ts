import type { ResourcePermission } from '../identity/policy';

/** Counts of an agent's linked knowledge bases and their documents (spec 4.2 indexing-status). */
export interface KnowledgeReadiness {
  linkedKbCount: number;
  totalDocuments: number;
  /** Documents with processingStatus `completed`. */
  indexedDocuments: number;
  failedDocuments: number;
  /** pending or processing. */
  pendingDocuments: number;
}

/** A linked knowledge base as the get-agent response shows it. */
export interface LinkedKnowledgeBase {
  id: string;
  name: string;
  description: string;
  documentCount: number;
  indexedDocumentCount: number;
  failedDocumentCount: number;
  pendingDocumentCount: number;
}

/** A knowledge base an agent may be linked to, with the caller's explicit grants on it. */
export interface LinkableKnowledgeBase {
  id: string;
  grants: ResourcePermission[];
}

/**
 * What the agents area needs from knowledge bases, in the agents' own terms. Implemented in SQL over the
 * knowledge tables (adapters/postgres/repositories/agents.knowledge-links.ts), bound to the same
 * transaction as the other repositories.
 */
export interface KnowledgeLinks {
  /** The knowledge bases among `ids` that exist, are not deleted and belong to the organization. */
  findLinkable(organizationId: string, userId: string, ids: string[]): Promise<LinkableKnowledgeBase[]>;
  /** Replaces the agent's whole set of links (an empty list unlinks all). */
  replaceLinks(organizationId: string, agentId: string, knowledgeBaseIds: string[], at: string): Promise<void>;
  /** Ids of linked (not deleted) knowledge bases, oldest link first. */
  linkedIds(agentId: string): Promise<string[]>;
  linkedKnowledgeBases(agentId: string): Promise<LinkedKnowledgeBase[]>;
  readiness(agentId: string): Promise<KnowledgeReadiness>;
}

/** Spec 3.2: a non-draft agent needs at least one linked knowledge base with at least one indexed document. */
export const isKnowledgeReady = (r: KnowledgeReadiness) => r.linkedKbCount > 0 && r.indexedDocuments > 0;
