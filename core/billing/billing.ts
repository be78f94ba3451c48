import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { Repositories } from '../ports/repositories';
import type { Store } from '../ports/store';
import { NO_TRACER, type Tracer } from '../ports/tracer';
import { DomainError } from '../shared/errors';
import type { BillingEvent } from './wallet';

export interface BillingDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  marginMultiplier: number;
  /** A `billing.charge` span per charge (absent: none). */
  tracer?: Tracer;
  /** Told about every recorded charge (token and cost metrics); absent: nobody is. */
  onCharged?: (event: BillingEvent) => void;
}

export interface ChargeInput {
  organizationId: string;
  kind: string;
  model: string | null;
  promptTokens?: number;
  completionTokens?: number;
  /** What the provider charges us; the wallet is charged this times the margin. Free models pass 0. */
  providerCostUsd: number;
  reference?: Record<string, unknown>;
}

/** Refuses work before a paid provider is called when the wallet is empty. */
export async function ensureCredits(deps: BillingDeps, organizationId: string) {
  const wallet = await deps.store.repos.wallets.find(organizationId);
  if (!wallet || wallet.balanceUsd <= 0) {
    throw new DomainError('INSUFFICIENT_CREDITS', 'The organization has no credits left; top up the wallet to continue');
  }
}

/** Records a billing event and deducts from the wallet in one step (free models record a zero event). */
export async function charge(deps: BillingDeps, input: ChargeInput, repos?: Repositories): Promise<BillingEvent> {
  const run = async (r: Repositories) => {
    const costUsd = roundUsd(input.providerCostUsd * deps.marginMultiplier);
    const event: BillingEvent = {
      id: deps.ids.uuid(),
      organizationId: input.organizationId,
      kind: input.kind,
      model: input.model,
      promptTokens: input.promptTokens ?? 0,
      completionTokens: input.completionTokens ?? 0,
      providerCostUsd: roundUsd(input.providerCostUsd),
      costUsd,
      reference: input.reference ?? {},
      createdAt: deps.clock.now().toISOString(),
    };
    if (costUsd !== 0) await r.wallets.adjust(input.organizationId, -costUsd, event.createdAt);
    await r.billingEvents.record(event);
    return event;
  };
  const attributes = { 'billing.kind': input.kind, 'billing.model': input.model ?? undefined };
  const event = await (deps.tracer ?? NO_TRACER).inSpan('billing.charge', attributes, () =>
    repos ? run(repos) : deps.store.transaction(run),
  );
  deps.onCharged?.(event);
  return event;
}

export async function topUp(deps: BillingDeps, organizationId: string, amountUsd: number) {
  if (!(amountUsd > 0)) throw new DomainError('VALIDATION', 'amountUsd must be greater than 0');
  return deps.store.transaction(async (repos) => {
    if (!(await repos.organizations.findById(organizationId))) throw new DomainError('NOT_FOUND', 'Organization not found');
    const at = deps.clock.now().toISOString();
    const balance = await repos.wallets.adjust(organizationId, amountUsd, at);
    await repos.billingEvents.record({
      id: deps.ids.uuid(),
      organizationId,
      kind: 'top_up',
      model: null,
      promptTokens: 0,
      completionTokens: 0,
      providerCostUsd: 0,
      costUsd: -amountUsd,
      reference: {},
      createdAt: at,
    });
    return { organizationId, balance, currency: 'USD', updatedAt: at };
  });
}

export async function walletOf(deps: BillingDeps, organizationId: string, recent = 50) {
  const repos = deps.store.repos;
  const wallet = await repos.wallets.find(organizationId);
  if (!wallet) throw new DomainError('NOT_FOUND', 'Wallet not found');
  const events = await repos.billingEvents.listRecent(organizationId, recent);
  // The balance also stands at the top level: docs/contracts.md names the response only as "balance and recent events".
  return {
    balance: wallet.balanceUsd,
    currency: 'USD',
    wallet: {
      organizationId,
      balance: wallet.balanceUsd,
      currency: 'USD',
      marginMultiplier: deps.marginMultiplier,
      updatedAt: wallet.updatedAt,
    },
    events,
  };
}

/** Credits are kept to 8 decimal places (the column's precision). */
export const roundUsd = (usd: number) => Math.round(usd * 1e8) / 1e8;
