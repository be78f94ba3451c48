import type { AgentRepository } from '../agents/agent';
import type { ModelRepository } from '../models/model';
import type { AuditRepository } from '../audit/audit.repository';
import type { ApiKeyRepository } from '../api-keys/api-key';
import type { BillingEventRepository, WalletRepository } from '../billing/wallet';
import type { OAuthStateRepository, RefreshTokenRepository, UserRepository } from '../identity/user';
import type { InvitationRepository, MembershipRepository, OrganizationRepository } from '../organizations/organization';

/** Every repository, bound to one connection or transaction. Each area adds its own here. */
export interface Repositories {
  users: UserRepository;
  refreshTokens: RefreshTokenRepository;
  oauthStates: OAuthStateRepository;
  organizations: OrganizationRepository;
  memberships: MembershipRepository;
  invitations: InvitationRepository;
  apiKeys: ApiKeyRepository;
  wallets: WalletRepository;
  billingEvents: BillingEventRepository;
  audit: AuditRepository;
  agents: AgentRepository;
  models: ModelRepository;
}
