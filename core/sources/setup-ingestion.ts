/**
 * The sources area's side of `POST /api/bots/setup` (core/agents/agent-setup.ts): after the knowledge base
 * and the draft agent are committed, each setup source becomes a source of the new knowledge base and its
 * first sync is queued. A URL that no plugin can read is still recorded, as a failing source with the
 * reason, so the knowledge-base health shows it instead of losing it silently.
 */
import type { SetupSourceIngestion } from '../agents/agent-deps';
import type { KnowledgeSource } from '../knowledge/source';
import { isDomainError } from '../shared/errors';
import { enqueueSync, resolveSource } from './manage-sources';
import type { SourcesDeps } from './sources-deps';

export function setupSourceIngestion(deps: SourcesDeps): SetupSourceIngestion {
  return {
    async start({ organizationId, userId, knowledgeBaseId, sources }) {
      const repos = deps.knowledge.store.repos;
      for (const requested of sources) {
        const now = deps.knowledge.clock.now().toISOString();
        const base: KnowledgeSource = {
          id: deps.knowledge.ids.uuid(),
          organizationId,
          knowledgeBaseId,
          url: requested.url,
          sourceType: requested.sourceType || 'url',
          options: {},
          syncEnabled: false,
          syncFrequencyMinutes: 60,
          lastSyncedAt: null,
          nextSyncAt: null,
          lastSyncError: null,
          syncHealth: 'pending',
          createdBy: userId,
          createdAt: now,
          updatedAt: now,
        };
        let resolved: ReturnType<typeof resolveSource>;
        try {
          resolved = resolveSource(deps, { url: requested.url, sourceType: base.sourceType });
        } catch (error) {
          if (!isDomainError(error)) throw error;
          await repos.sources.create({ ...base, syncHealth: 'failing', lastSyncError: error.message });
          continue;
        }
        const source = { ...base, sourceType: resolved.type, url: resolved.url, options: resolved.options };
        await repos.sources.create(source);
        await enqueueSync(deps, source, 'setup');
      }
    },
  };
}
