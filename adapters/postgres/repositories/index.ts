import type { Repositories } from '../../../core/ports/repositories';
import type { DbHandle } from '../db-handle';
import { KnexAgentKnowledgeLinks } from './agents.knowledge-links';
import { KnexAgentRepository } from './agents.repository';
import { KnexAgentUsageReader } from './agents.usage.repository';
import { KnexAgentVersionRepository } from './agents.versions.repository';
import { KnexApiKeyRepository } from './api-keys.repository';
import { KnexAttachmentRepository } from './attachments.repository';
import { KnexAuditRepository } from './audit.repository';
import { KnexBillingEventRepository, KnexWalletRepository } from './billing.repository';
import { KnexChannelDeliveryRepository } from './channel-deliveries.repository';
import { KnexChannelRepository } from './channels.repository';
import { KnexContactRepository } from './contacts.repository';
import { KnexConversationRepository } from './conversations.repository';
import { KnexGroupRepository } from './groups.repository';
import { KnexJobRepository } from './jobs.repository';
import { KnexKnowledgeBaseRepository } from './knowledge-bases.repository';
import { KnexDocumentRepository } from './knowledge-documents.repository';
import { KnexAgentKnowledgeLinkRepository } from './knowledge-links.repository';
import { KnexSearchLogRepository } from './knowledge-search-log.repository';
import { KnexKnowledgeSourceRepository } from './knowledge-sources.repository';
import { KnexModelRepository } from './models.repository';
import { KnexInvitationRepository, KnexMembershipRepository, KnexOrganizationRepository } from './organizations.repository';
import { KnexPromptConfigRepository } from './prompt-config.repository';
import { KnexBuildRepository } from './provisioning-builds.repository';
import { KnexSsoIdentityRepository, KnexSsoProviderRepository, KnexSsoStateRepository } from './sso.repository';
import { KnexOAuthStateRepository, KnexRefreshTokenRepository } from './tokens.repository';
import { KnexUserRepository } from './users.repository';
import { KnexWebhookDeliveryRepository } from './webhook-deliveries.repository';

export interface RepositoryOptions {
  cursors: boolean;
  /** Runs work once the transaction open on the caller's async path has ended (nothing outside one). */
  afterTransaction?: (work: () => void) => void;
}

export function createRepositories(db: DbHandle, options: RepositoryOptions = { cursors: false }): Repositories {
  return {
    users: new KnexUserRepository(db),
    refreshTokens: new KnexRefreshTokenRepository(db),
    oauthStates: new KnexOAuthStateRepository(db),
    ssoProviders: new KnexSsoProviderRepository(db),
    ssoIdentities: new KnexSsoIdentityRepository(db),
    ssoStates: new KnexSsoStateRepository(db),
    organizations: new KnexOrganizationRepository(db),
    memberships: new KnexMembershipRepository(db),
    invitations: new KnexInvitationRepository(db),
    apiKeys: new KnexApiKeyRepository(db),
    wallets: new KnexWalletRepository(db),
    billingEvents: new KnexBillingEventRepository(db),
    audit: new KnexAuditRepository(db),
    agents: new KnexAgentRepository(db),
    agentVersions: new KnexAgentVersionRepository(db),
    agentKnowledge: new KnexAgentKnowledgeLinks(db),
    agentUsage: new KnexAgentUsageReader(db),
    prompts: new KnexPromptConfigRepository(db),
    knowledgeBases: new KnexKnowledgeBaseRepository(db),
    knowledgeLinks: new KnexAgentKnowledgeLinkRepository(db),
    documents: new KnexDocumentRepository(db),
    sources: new KnexKnowledgeSourceRepository(db),
    searchLog: new KnexSearchLogRepository(db),
    models: new KnexModelRepository(db),
    conversations: new KnexConversationRepository(db),
    attachments: new KnexAttachmentRepository(db),
    groups: new KnexGroupRepository(db),
    contacts: new KnexContactRepository(db, options),
    channels: new KnexChannelRepository(db, Date.now, options.afterTransaction),
    channelDeliveries: new KnexChannelDeliveryRepository(db),
    jobs: new KnexJobRepository(db),
    webhookDeliveries: new KnexWebhookDeliveryRepository(db),
    provisioningBuilds: new KnexBuildRepository(db),
  };
}
