import type { BillingEvent, BillingEventRepository, Wallet, WalletRepository } from '../../../core/billing/wallet';
import type { DbHandle } from '../db-handle';
import { iso } from './rows';

export class KnexWalletRepository implements WalletRepository {
  constructor(private readonly db: DbHandle) {}

  async create(w: Wallet) {
    await this.db()('wallets').insert({ organization_id: w.organizationId, balance_usd: w.balanceUsd, updated_at: w.updatedAt });
  }

  async find(organizationId: string) {
    const r = await this.db()('wallets').where({ organization_id: organizationId }).first();
    return r ? { organizationId, balanceUsd: Number(r.balance_usd), updatedAt: iso(r.updated_at) } : null;
  }

  async adjust(organizationId: string, deltaUsd: number, at: string) {
    const [r] = await this.db()('wallets')
      .where({ organization_id: organizationId })
      .update({ balance_usd: this.db().raw('balance_usd + ?', [deltaUsd]), updated_at: at })
      .returning('balance_usd');
    if (!r) throw new Error(`wallet of organization ${organizationId} is missing`);
    return Number(r.balance_usd);
  }
}

export class KnexBillingEventRepository implements BillingEventRepository {
  constructor(private readonly db: DbHandle) {}

  async record(e: BillingEvent) {
    await this.db()('billing_events').insert({
      id: e.id,
      organization_id: e.organizationId,
      kind: e.kind,
      model: e.model,
      prompt_tokens: e.promptTokens,
      completion_tokens: e.completionTokens,
      provider_cost_usd: e.providerCostUsd,
      cost_usd: e.costUsd,
      reference: JSON.stringify(e.reference),
      created_at: e.createdAt,
    });
  }

  async listRecent(organizationId: string, limit: number) {
    const rows = await this.db()('billing_events').where({ organization_id: organizationId }).orderBy('created_at', 'desc').limit(limit);
    return rows.map((r) => ({
      id: r.id,
      organizationId: r.organization_id,
      kind: r.kind,
      model: r.model,
      promptTokens: r.prompt_tokens,
      completionTokens: r.completion_tokens,
      providerCostUsd: Number(r.provider_cost_usd),
      costUsd: Number(r.cost_usd),
      reference: r.reference,
      createdAt: iso(r.created_at),
    }));
  }
}
