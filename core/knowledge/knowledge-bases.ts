import { recordAudit } from '../audit/audit-log';
import type { Actor } from '../identity/actor';
import { requireOrgPermission } from '../identity/policy';
import { activeOrganization } from '../identity/policy';
import { DomainError } from '../shared/errors';
import { knowledgeBaseFor } from './kb-access';
import { normalizeSettings } from './kb-settings';
import type { KnowledgeBase, KnowledgeBasePatch, KnowledgeBaseVisibility } from './knowledge-base';
import type { KnowledgeDeps } from './knowledge-deps';

export interface KnowledgeBaseView {
  id: string;
  name: string;
  description: string;
  organizationId: string;
  visibility: KnowledgeBaseVisibility;
  settings: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

export const toKnowledgeBaseView = (kb: KnowledgeBase): KnowledgeBaseView => ({
  id: kb.id,
  name: kb.name,
  description: kb.description,
  organizationId: kb.organizationId,
  visibility: kb.visibility,
  settings: kb.settings,
  createdAt: kb.createdAt,
  updatedAt: kb.updatedAt,
});

export interface CreateKnowledgeBaseInput {
  name: string;
  description?: string;
  visibility?: KnowledgeBaseVisibility;
  settings?: Record<string, unknown>;
}

const settingDefaults = (deps: KnowledgeDeps) => ({ embedding: deps.settings.defaultEmbedding, chunking: deps.settings.defaultChunking });

function checkName(name: unknown): string {
  const trimmed = typeof name === 'string' ? name.trim() : '';
  if (!trimmed) throw new DomainError('VALIDATION', 'name is required');
  if (trimmed.length > 255) throw new DomainError('VALIDATION', 'name must be at most 255 characters');
  return trimmed;
}

/** Members and above; counts against the plan's knowledge-base limit. */
export async function createKnowledgeBase(deps: KnowledgeDeps, actor: Actor, input: CreateKnowledgeBaseInput): Promise<KnowledgeBaseView> {
  const organizationId = requireOrgPermission(actor, 'knowledge_bases.create');
  const name = checkName(input.name);
  const settings = normalizeSettings(input.settings, settingDefaults(deps));
  const now = deps.clock.now().toISOString();
  const kb: KnowledgeBase = {
    id: deps.ids.uuid(),
    organizationId,
    name,
    description: input.description ?? '',
    visibility: input.visibility ?? 'private',
    settings,
    createdBy: actor.userId,
    createdAt: now,
    updatedAt: now,
  };
  await deps.store.transaction(async (repos) => {
    await repos.knowledgeBases.lockOrganization(organizationId);
    const org = await repos.organizations.findById(organizationId);
    if (!org) throw new DomainError('NOT_FOUND', 'Organization not found');
    const count = await repos.knowledgeBases.count(organizationId);
    if (count >= org.plan.knowledgeBases) {
      throw new DomainError('PLAN_LIMIT', `The plan allows ${org.plan.knowledgeBases} knowledge bases; delete one or upgrade the plan`, {
        limit: org.plan.knowledgeBases,
      });
    }
    await repos.knowledgeBases.create(kb);
    await recordAudit(deps, repos, {
      organizationId,
      actorId: actor.userId,
      action: 'knowledge_base.create',
      resourceType: 'knowledge_base',
      resourceId: kb.id,
      metadata: { name },
    });
  });
  return toKnowledgeBaseView(kb);
}

export async function listKnowledgeBases(deps: KnowledgeDeps, actor: Actor, page: { limit: number; offset: number }) {
  const organizationId = activeOrganization(actor);
  const { items, total } = await deps.store.repos.knowledgeBases.list(organizationId, page);
  return { knowledgeBases: items.map(toKnowledgeBaseView), total, limit: page.limit, offset: page.offset };
}

export async function getKnowledgeBase(deps: KnowledgeDeps, actor: Actor, id: string): Promise<KnowledgeBaseView> {
  return toKnowledgeBaseView(await knowledgeBaseFor(deps.store.repos, actor, id, 'read'));
}

export interface UpdateKnowledgeBaseInput {
  name?: string;
  description?: string;
  visibility?: KnowledgeBaseVisibility;
  /** Merged over the current settings (top-level keys); the embedding size is fixed once documents exist. */
  settings?: Record<string, unknown>;
}

export async function updateKnowledgeBase(
  deps: KnowledgeDeps,
  actor: Actor,
  id: string,
  input: UpdateKnowledgeBaseInput,
): Promise<KnowledgeBaseView> {
  return deps.store.transaction(async (repos) => {
    const kb = await knowledgeBaseFor(repos, actor, id, 'edit');
    const patch: KnowledgeBasePatch = { updatedAt: deps.clock.now().toISOString() };
    if (input.name !== undefined) patch.name = checkName(input.name);
    if (input.description !== undefined) patch.description = input.description;
    if (input.visibility !== undefined) patch.visibility = input.visibility;
    if (input.settings !== undefined) {
      const embeddingIn = (input.settings as { embedding?: Record<string, unknown> }).embedding;
      const current = kb.settings.embedding ?? deps.settings.defaultEmbedding;
      const merged = { ...kb.settings, ...input.settings, embedding: { ...current, ...(embeddingIn ?? {}) } };
      const settings = normalizeSettings(merged, {
        ...settingDefaults(deps),
        embedding: { ...deps.settings.defaultEmbedding, dimensions: current.dimensions },
      });
      if (settings.embedding.dimensions !== current.dimensions) {
        const [stats] = await repos.knowledgeBases.stats(kb.organizationId, [kb.id]);
        if (stats.documentCount > 0)
          throw new DomainError('CONFLICT', 'settings.embedding cannot change once the knowledge base has documents');
      }
      patch.settings = settings;
    }
    const updated = await repos.knowledgeBases.update(kb.organizationId, kb.id, patch);
    if (!updated) throw new DomainError('NOT_FOUND', 'Knowledge base not found');
    return toKnowledgeBaseView(updated);
  });
}

/**
 * Hard delete: the row (documents, sources, agent links and search log cascade), then the vectors and the
 * original files. The vector and blob clean-up runs after the commit; a failure there is logged, and the
 * leftovers are unreachable (searches only read knowledge bases that exist).
 */
export async function deleteKnowledgeBase(deps: KnowledgeDeps, actor: Actor, id: string): Promise<void> {
  const { kb, documentCount } = await deps.store.transaction(async (repos) => {
    const kb = await knowledgeBaseFor(repos, actor, id, 'delete');
    const [stats] = await repos.knowledgeBases.stats(kb.organizationId, [kb.id]);
    await repos.knowledgeBases.delete(kb.organizationId, kb.id);
    await recordAudit(deps, repos, {
      organizationId: kb.organizationId,
      actorId: actor.userId,
      action: 'knowledge_base.delete',
      resourceType: 'knowledge_base',
      resourceId: kb.id,
      metadata: { name: kb.name, documentCount: stats.documentCount, sourceCount: stats.sourceCount },
    });
    return { kb, documentCount: stats.documentCount };
  });
  await purgeKnowledgeBaseData(deps, kb.organizationId, kb.id, documentCount);
}

export async function purgeKnowledgeBaseData(deps: KnowledgeDeps, organizationId: string, knowledgeBaseId: string, documentCount = 0) {
  try {
    await deps.vectorIndex.deleteByKnowledgeBase(organizationId, knowledgeBaseId);
    await deps.graph?.deleteByKnowledgeBase({ organizationId, knowledgeBaseId });
    await deps.blobs.deletePrefix(`${organizationId}/${knowledgeBaseId}/`);
  } catch (error) {
    deps.log('error', `knowledge base ${knowledgeBaseId}: clean-up of vectors and files failed`, { error, documentCount });
  }
}
