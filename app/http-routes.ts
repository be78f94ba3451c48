import type { HandlerMap } from '../adapters/http/handler';
import { accountSecurityRoutes } from '../adapters/http/routes/account-security.routes';
import { agentRoutes } from '../adapters/http/routes/agents.routes';
import { analyticsRoutes } from '../adapters/http/routes/analytics.routes';
import { channelRoutes } from '../adapters/http/routes/channels.routes';
import { chatRoutes } from '../adapters/http/routes/chat.routes';
import { contactRoutes } from '../adapters/http/routes/contacts.routes';
import { graphRoutes } from '../adapters/http/routes/graph.routes';
import { groupRoutes } from '../adapters/http/routes/groups.routes';
import { identityRoutes } from '../adapters/http/routes/identity.routes';
import { jobRoutes } from '../adapters/http/routes/jobs.routes';
import { knowledgeRoutes } from '../adapters/http/routes/knowledge.routes';
import { modelRoutes } from '../adapters/http/routes/models.routes';
import { openAiCompatRoutes } from '../adapters/http/routes/openai-compat.routes';
import { platformRoutes } from '../adapters/http/routes/platform.routes';
import { promptRoutes } from '../adapters/http/routes/prompts.routes';
import { provisioningRoutes } from '../adapters/http/routes/provisioning.routes';
import { publicChatRoutes } from '../adapters/http/routes/public-chat.routes';
import { sourceRoutes } from '../adapters/http/routes/sources.routes';
import { ssoRoutes } from '../adapters/http/routes/sso.routes';
import type { Infrastructure } from './infrastructure';
import { openApiDocument } from './openapi-document';
import type { Services } from './services';

export { openApiDocument };

/** Handlers of every operation, by operationId. Each area adds its route module here. */
export function buildHandlers(infra: Infrastructure, services: Services): HandlerMap {
  let doc: unknown;
  return {
    ...platformRoutes({ billing: services.billing, openApiDocument: () => (doc ??= openApiDocument(infra)) }),
    ...modelRoutes(services.catalogue),
    ...agentRoutes(services.agents),
    ...promptRoutes(services.prompts),
    ...knowledgeRoutes(services.knowledge),
    ...graphRoutes(services.graph),
    ...sourceRoutes(services.sources),
    ...chatRoutes(services.chat),
    ...openAiCompatRoutes(services.chat),
    ...publicChatRoutes(services.publicChat),
    ...groupRoutes(services.organizations),
    ...jobRoutes(services.jobs),
    ...provisioningRoutes({ provisioning: services.provisioning, jobs: services.jobs }),
    ...identityRoutes({
      identity: services.identity,
      organizations: services.organizations,
      apiKeys: services.apiKeys,
      google: { oidc: infra.oidc, provider: infra.google },
      // Getters: with PORT=0 these URLs are completed once the gateway is listening (app/platform.ts).
      get publicUrl() {
        return infra.config.publicUrl;
      },
      get appUrl() {
        return infra.config.appUrl;
      },
    }),
    ...accountSecurityRoutes(services.identity),
    ...contactRoutes(services.contacts),
    ...channelRoutes(services.channels),
    ...ssoRoutes({
      identity: services.identity,
      oidc: infra.oidc,
      get publicUrl() {
        return infra.config.publicUrl;
      },
      get appUrl() {
        return infra.config.appUrl;
      },
    }),
    ...analyticsRoutes(services.analytics),
  };
}
