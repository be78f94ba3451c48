import { charge, ensureCredits } from '../billing/billing';
import type { BillingEvent } from '../billing/wallet';
import type { TokenUsage } from '../ports/chat-model';
import type { Repositories } from '../ports/repositories';
import { DomainError } from '../shared/errors';
import type { ChatDeps } from './chat-deps';

export interface ModelPrice {
  model: string;
  promptPricePerToken: number;
  completionPricePerToken: number;
  isFree: boolean;
}

/** Every `local/...` model runs in-process and costs nothing, listed in the catalogue or not. */
const isLocal = (model: string) => model.startsWith('local/');

/**
 * Prices of a chat model from the catalogue. A model the catalogue does not list cannot be priced, so it is
 * refused before anything is called (billing would otherwise be skipped).
 */
export async function modelPrice(repos: Repositories, model: string): Promise<ModelPrice> {
  if (isLocal(model)) return { model, promptPricePerToken: 0, completionPricePerToken: 0, isFree: true };
  const m = await repos.models.findById(model);
  if (!m)
    throw new DomainError(
      'VALIDATION',
      `The agent's model ${model} is not in the model catalogue, so it cannot be priced; choose a listed model`,
    );
  const free = m.isFree || (m.promptPricePerToken === 0 && m.completionPricePerToken === 0);
  return { model, promptPricePerToken: m.promptPricePerToken, completionPricePerToken: m.completionPricePerToken, isFree: free };
}

/** Paid models need credits before the provider is called (402 insufficient_credits). */
export async function ensureCreditsFor(deps: ChatDeps, organizationId: string, price: ModelPrice) {
  if (!price.isFree) await ensureCredits(deps.billing, organizationId);
}

export const providerCost = (price: ModelPrice, usage: TokenUsage) =>
  price.isFree ? 0 : usage.promptTokens * price.promptPricePerToken + usage.completionTokens * price.completionPricePerToken;

/** Records the billing event of a model call (a 0-cost event for free models) inside `repos`' transaction. */
export function chargeModelCall(
  deps: ChatDeps,
  repos: Repositories,
  input: {
    organizationId: string;
    kind: 'chat' | 'welcome_message';
    price: ModelPrice;
    usage: TokenUsage;
    reference: Record<string, unknown>;
  },
): Promise<BillingEvent> {
  return charge(
    deps.billing,
    {
      organizationId: input.organizationId,
      kind: input.kind,
      model: input.price.model,
      promptTokens: input.usage.promptTokens,
      completionTokens: input.usage.completionTokens,
      providerCostUsd: providerCost(input.price, input.usage),
      reference: input.reference,
    },
    repos,
  );
}
