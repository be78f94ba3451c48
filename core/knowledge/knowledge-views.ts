import type { Actor } from '../identity/actor';
import { knowledgeBaseFor } from './kb-access';
import type { KnowledgeDeps } from './knowledge-deps';

/** Spec 4.9 document map: completed documents with their summary and topics. */
export async function knowledgeMap(deps: KnowledgeDeps, actor: Actor, knowledgeBaseId: string) {
  const kb = await knowledgeBaseFor(deps.store.repos, actor, knowledgeBaseId, 'read');
  const documents = await deps.store.repos.documents.map(kb.organizationId, kb.id);
  return { knowledgeBaseId: kb.id, knowledgeBaseName: kb.name, total: documents.length, documents };
}

export async function listSearchLog(deps: KnowledgeDeps, actor: Actor, knowledgeBaseId: string, page: { limit: number; offset: number }) {
  const kb = await knowledgeBaseFor(deps.store.repos, actor, knowledgeBaseId, 'read');
  const { items, total } = await deps.store.repos.searchLog.list(kb.organizationId, kb.id, page);
  return {
    entries: items.map(({ organizationId: _o, ...e }) => e),
    total,
    limit: page.limit,
    offset: page.offset,
  };
}

export async function clearSearchLog(deps: KnowledgeDeps, actor: Actor, knowledgeBaseId: string) {
  const kb = await knowledgeBaseFor(deps.store.repos, actor, knowledgeBaseId, 'edit');
  const deleted = await deps.store.repos.searchLog.clear(kb.organizationId, kb.id);
  return { message: 'Search log cleared', deleted };
}
