import type { AgentRepository } from '../agents/agent';
import type { AgentUsageReader } from '../agents/agent-usage';
import type { AgentVersionRepository } from '../agents/agent-version';
import type { KnowledgeLinks } from '../agents/knowledge-links';
import type { ApiKeyRepository } from '../api-keys/api-key';
import type { AttachmentRepository } from '../attachments/attachment';
import type { AuditRepository } from '../audit/audit.repository';
import type { BillingEventRepository, WalletRepository } from '../billing/wallet';
import type { ChannelRepository } from '../channels/channel';
import type { ChannelDeliveryRepository } from '../channels/channel-delivery';
import type { ContactRepository } from '../contacts/contact';
import type { ConversationRepository } from '../conversations/conversation';
import type { SsoIdentityRepository, SsoProviderRepository, SsoStateRepository } from '../identity/sso/sso-provider';
import type { OAuthStateRepository, RefreshTokenRepository, UserRepository } from '../identity/user';
import type { JobRepository } from '../jobs/job';
import type { DocumentRepository } from '../knowledge/document';
import type { AgentKnowledgeLinkRepository, KnowledgeBaseRepository } from '../knowledge/knowledge-base';
import type { SearchLogRepository } from '../knowledge/search-log';
import type { KnowledgeSourceRepository } from '../knowledge/source';
import type { ModelRepository } from '../models/model';
import type { GroupRepository } from '../organizations/group';
import type { InvitationRepository, MembershipRepository, OrganizationRepository } from '../organizations/organization';
import type { PromptConfigRepository } from '../prompts/prompt-config';
import type { BuildRepository } from '../provisioning/build';
import type { WebhookDeliveryRepository } from '../webhooks/webhook-delivery';

/** Every repository, bound to one connection or transaction. Each area adds its own here. */
export interface Repositories {
  users: UserRepository;
  refreshTokens: RefreshTokenRepository;
  oauthStates: OAuthStateRepository;
  /** OpenID Connect providers configured by an administrator, the accounts linked through them, pending sign-ins. */
  ssoProviders: SsoProviderRepository;
  ssoIdentities: SsoIdentityRepository;
  ssoStates: SsoStateRepository;
  organizations: OrganizationRepository;
  memberships: MembershipRepository;
  invitations: InvitationRepository;
  apiKeys: ApiKeyRepository;
  wallets: WalletRepository;
  billingEvents: BillingEventRepository;
  audit: AuditRepository;
  agents: AgentRepository;
  agentVersions: AgentVersionRepository;
  /** The agents area's view of knowledge bases (links, readiness). */
  agentKnowledge: KnowledgeLinks;
  agentUsage: AgentUsageReader;
  prompts: PromptConfigRepository;
  knowledgeBases: KnowledgeBaseRepository;
  knowledgeLinks: AgentKnowledgeLinkRepository;
  documents: DocumentRepository;
  sources: KnowledgeSourceRepository;
  searchLog: SearchLogRepository;
  models: ModelRepository;
  /** Conversations and messages (chat area). */
  conversations: ConversationRepository;
  /** Public-chat attachments (public-chat area). */
  attachments: AttachmentRepository;
  /** User groups of organizations (docs/contracts.md "Groups"). */
  groups: GroupRepository;
  /** Contacts, identities and field history (channels area). */
  contacts: ContactRepository;
  /** Agent channels and their inbound message ledger (channels area). */
  channels: ChannelRepository;
  /** Channel replies to send, with their attempts (the outbox of `channels.outbound`). */
  channelDeliveries: ChannelDeliveryRepository;
  /** Long-running jobs (docs/contracts.md "Jobs") and the webhook deliveries of their events. */
  jobs: JobRepository;
  webhookDeliveries: WebhookDeliveryRepository;
  /** Provisioning builds from a channel URL (spec 3.3) and their Idempotency-Keys. */
  provisioningBuilds: BuildRepository;
}
