import type { Model, ModelRepository } from '../../../core/models/model';
import type { DbHandle } from '../db-handle';
import { isoOrNull } from './rows';

const toModel = (r: Record<string, unknown>): Model => ({
  id: r.id as string,
  name: r.name as string,
  provider: r.provider as string,
  contextLength: r.context_length as number,
  promptPricePerToken: Number(r.prompt_price_per_token),
  completionPricePerToken: Number(r.completion_price_per_token),
  isActive: r.is_active as boolean,
  isFree: r.is_free as boolean,
  capabilities: r.capabilities as Model['capabilities'],
  recommendationScore: Number(r.recommendation_score),
  useCases: r.use_cases as string[],
  lastSyncedAt: isoOrNull(r.last_synced_at),
});

export class KnexModelRepository implements ModelRepository {
  constructor(private readonly db: DbHandle) {}

  async count() {
    const [{ n }] = await this.db()('models').count({ n: '*' });
    return Number(n);
  }

  async list({ includeInactive }: { includeInactive: boolean }) {
    const q = this.db()('models');
    if (!includeInactive) q.where({ is_active: true });
    return (await q).map(toModel);
  }

  async findById(id: string) {
    const r = await this.db()('models').where({ id }).first();
    return r ? toModel(r) : null;
  }

  async upsert(models: Model[]) {
    if (!models.length) return;
    const rows = models.map((m) => ({
      id: m.id,
      name: m.name,
      provider: m.provider,
      context_length: m.contextLength,
      prompt_price_per_token: m.promptPricePerToken,
      completion_price_per_token: m.completionPricePerToken,
      is_active: m.isActive,
      is_free: m.isFree,
      capabilities: JSON.stringify(m.capabilities),
      recommendation_score: m.recommendationScore,
      use_cases: m.useCases,
      last_synced_at: m.lastSyncedAt,
    }));
    await this.db()('models').insert(rows).onConflict('id').merge();
  }

  async deactivateMissing(provider: string, keep: string[]) {
    return this.db()('models').where({ provider, is_active: true }).whereNotIn('id', keep).update({ is_active: false });
  }
}
