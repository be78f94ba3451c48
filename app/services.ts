import { type AgentDeps, FALLBACK_CHAT_MODEL } from '../core/agents/agent-deps';
import type { AnalyticsAreaDeps } from '../core/analytics/analytics-deps';
import type { ApiKeyDeps } from '../core/api-keys/api-keys';
import type { BillingDeps } from '../core/billing/billing';
import type { ChannelDeps } from '../core/channels/channel-deps';
import { scheduleOperatorMessage } from '../core/channels/deliveries';
import type { ChatDeps } from '../core/chat/chat-deps';
import type { ContactDeps } from '../core/contacts/contact-deps';
import type { GraphDeps } from '../core/graph/graph-deps';
import { ACCESS_TOKEN_SECONDS, type IdentityDeps, REFRESH_TOKEN_SECONDS } from '../core/identity/identity-deps';
import type { JobDeps } from '../core/jobs/job-deps';
import { createKnowledgeBase } from '../core/knowledge/knowledge-bases';
import type { KnowledgeDeps } from '../core/knowledge/knowledge-deps';
import type { CatalogueDeps } from '../core/models/catalogue';
import type { ModelAvailability } from '../core/models/model-availability';
import type { OrganizationDeps } from '../core/organizations/organization-deps';
import type { PromptDeps } from '../core/prompts/prompt-deps';
import type { ProvisioningDeps } from '../core/provisioning/provisioning-deps';
import type { PublicChatDeps } from '../core/public-chat/public-chat-deps';
import { setupSourceIngestion } from '../core/sources/setup-ingestion';
import type { SourcesDeps } from '../core/sources/sources-deps';
import { buildAnalyticsDeps } from './analytics-services';
import { buildChannelDeps, buildContactDeps } from './channels-services';
import { buildChatDeps } from './chat-services';
import { buildGraphDeps } from './graph-services';
import type { Infrastructure } from './infrastructure';
import { buildJobDeps } from './jobs-services';
import { buildKnowledgeDeps } from './knowledge-services';
import { buildProvisioningDeps } from './provisioning-services';
import { buildPublicChatDeps } from './public-chat-services';
import { buildSourcesDeps } from './sources-services';

/** Dependency bundles of the core use cases, built once from the infrastructure. */
export interface Services {
  identity: IdentityDeps;
  organizations: OrganizationDeps;
  apiKeys: ApiKeyDeps;
  billing: BillingDeps;
  catalogue: CatalogueDeps;
  agents: AgentDeps;
  prompts: PromptDeps;
  knowledge: KnowledgeDeps;
  graph: GraphDeps;
  chat: ChatDeps;
  sources: SourcesDeps;
  publicChat: PublicChatDeps;
  /** The job contract: job events, streams, webhook deliveries. */
  jobs: JobDeps;
  /** Agents built from a channel URL (spec 4.13). */
  provisioning: ProvisioningDeps;
  /** Contacts resolved from channel identities (channels area). */
  contacts: ContactDeps;
  /** Agent channels: CRUD, inbound webhooks, replies through the plugins. */
  channels: ChannelDeps;
  /** Organization and knowledge-base analytics, feedback, the learning prior (issue 12). */
  analytics: AnalyticsAreaDeps;
}

/** Brute-force and sign-up limits on the shared rate-limit store, and the password policy (issue 8). */
function signInSecurity(infra: Infrastructure): Pick<IdentityDeps, 'signInLimits' | 'passwordPolicy'> {
  const { login, registration, password } = infra.config.security;
  return {
    signInLimits: {
      store: infra.rateLimits,
      settings: {
        failuresPerAccount: login.failuresPerAccount,
        failuresPerIp: login.failuresPerIp,
        windowSeconds: login.windowSeconds,
        registrationsPerIp: registration.perIp,
        registrationWindowSeconds: registration.windowSeconds,
      },
    },
    passwordPolicy: { minLength: password.minLength, common: infra.commonPasswords },
  };
}

export function buildServices(infra: Infrastructure): Services {
  const { store, clock, ids, config } = infra;
  const billing: BillingDeps = {
    store,
    clock,
    ids,
    marginMultiplier: config.billing.marginMultiplier,
    ...(infra.tracing ? { tracer: infra.tracing.tracer } : {}),
    onCharged: (event) => infra.metrics.charged(event),
  };
  const knowledge = buildKnowledgeDeps(infra, billing);
  const sources = buildSourcesDeps(infra, knowledge);
  const contacts = buildContactDeps(infra);
  const chat = { ...buildChatDeps(infra, billing, knowledge), contacts };
  // A model is available when a selected chat provider serves it (the same router chat calls go through).
  const availability: ModelAvailability = { serves: (model) => infra.chat.chatModel.supports(model) };
  const catalogue: CatalogueDeps = { store, clock, listing: infra.modelListing, availability };
  const agents: AgentDeps = {
    store,
    clock,
    ids,
    settings: {
      defaultModel: config.models.defaultChatModel ?? FALLBACK_CHAT_MODEL,
      // Read on use: with PORT=0 the public URL is completed once the gateway listens (app/platform.ts).
      publicAgentUrl: (slug) => `${config.publicUrl.replace(/\/$/, '')}/api/public/agents/${encodeURIComponent(slug)}`,
    },
    // The knowledge and sources areas plug in here: createKnowledgeBase (knowledge) and ingestion (sources).
    setup: {
      createKnowledgeBase: async (actor, input) => ({ ...(await createKnowledgeBase(knowledge, actor, input)) }),
      ingestion: setupSourceIngestion(sources),
    },
    models: availability,
  };
  const channels = buildChannelDeps(infra, contacts, chat);
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
      ...signInSecurity(infra),
    },
    organizations: { store, clock, ids },
    apiKeys: { store, clock, ids },
    billing,
    catalogue,
    agents,
    prompts: { store, clock, ids },
    knowledge,
    graph: buildGraphDeps(infra, billing),
    sources,
    chat,
    publicChat: {
      ...buildPublicChatDeps(infra, chat),
      // An operator's message of a channel conversation: a delivery of the channels outbox (retried, listed).
      channelOutbound: async (message) => void (await scheduleOperatorMessage(channels, message)),
    },
    jobs: buildJobDeps(infra),
    provisioning: buildProvisioningDeps(infra, { sources, agents, catalogue, billing }),
    contacts,
    channels,
    analytics: buildAnalyticsDeps(infra),
  };
}
