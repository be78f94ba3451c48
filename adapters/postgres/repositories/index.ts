import type { Repositories } from '../../../core/ports/repositories';
import type { DbHandle } from '../knex-store';
import { KnexAgentRepository } from './agents.repository';
import { KnexModelRepository } from './models.repository';
import { KnexApiKeyRepository } from './api-keys.repository';
import { KnexAuditRepository } from './audit.repository';
import { KnexBillingEventRepository, KnexWalletRepository } from './billing.repository';
import { KnexInvitationRepository, KnexMembershipRepository, KnexOrganizationRepository } from './organizations.repository';
import { KnexOAuthStateRepository, KnexRefreshTokenRepository } from './tokens.repository';
import { KnexUserRepository } from './users.repository';

export function createRepositories(db: DbHandle): Repositories {
  return {
    users: new KnexUserRepository(db),
    refreshTokens: new KnexRefreshTokenRepository(db),
    oauthStates: new KnexOAuthStateRepository(db),
    organizations: new KnexOrganizationRepository(db),
    memberships: new KnexMembershipRepository(db),
    invitations: new KnexInvitationRepository(db),
    apiKeys: new KnexApiKeyRepository(db),
    wallets: new KnexWalletRepository(db),
    billingEvents: new KnexBillingEventRepository(db),
    audit: new KnexAuditRepository(db),
    agents: new KnexAgentRepository(db),
    models: new KnexModelRepository(db),
  };
}
