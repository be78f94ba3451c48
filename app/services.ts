import type { ApiKeyDeps } from '../core/api-keys/api-keys';
import type { BillingDeps } from '../core/billing/billing';
import { ACCESS_TOKEN_SECONDS, type IdentityDeps, REFRESH_TOKEN_SECONDS } from '../core/identity/identity-deps';
import type { CatalogueDeps } from '../core/models/catalogue';
import type { OrganizationDeps } from '../core/organizations/organization-deps';
import { OpenRouterModelListing } from '../adapters/openrouter/openrouter.model-listing';
import type { Infrastructure } from './infrastructure';

/** Dependency bundles of the core use cases, built once from the infrastructure. */
export interface Services {
  identity: IdentityDeps;
  organizations: OrganizationDeps;
  apiKeys: ApiKeyDeps;
  billing: BillingDeps;
  catalogue: CatalogueDeps;
}

export function buildServices(infra: Infrastructure): Services {
  const { store, clock, ids, config } = infra;
  return {
    identity: {
      store,
      clock,
      ids,
      tokens: infra.tokens,
      passwords: infra.passwords,
      settings: {
        initialCreditsUsd: config.billing.initialCreditsUsd,
        plan: { ...config.plans },
        superadminEmails: config.superadminEmails,
        accessTokenSeconds: ACCESS_TOKEN_SECONDS,
        refreshTokenSeconds: REFRESH_TOKEN_SECONDS,
      },
    },
    organizations: { store, clock, ids },
    apiKeys: { store, clock, ids },
    billing: { store, clock, ids, marginMultiplier: config.billing.marginMultiplier },
    catalogue: { store, clock, listing: config.models.syncUrl ? new OpenRouterModelListing({ url: config.models.syncUrl }) : null },
  };
}
