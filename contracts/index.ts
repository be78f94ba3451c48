import type { PluginCatalogue } from '../core/plugin-contract/plugin-manifest';
import type { Operation } from './operation';
import { accountSecurityOperations } from './operations/account-security';
import { agentOperations } from './operations/agents';
import { analyticsOperations } from './operations/analytics';
import { channelOperations } from './operations/channels';
import { chatOperations } from './operations/chat';
import { contactOperations } from './operations/contacts';
import { graphOperations } from './operations/graph';
import { groupOperations } from './operations/groups';
import { identityOperations } from './operations/identity';
import { jobOperations } from './operations/jobs';
import { knowledgeOperations } from './operations/knowledge';
import { modelOperations } from './operations/models';
import { openAiCompatOperations } from './operations/openai-compat';
import { platformOperations } from './operations/platform';
import { promptOperations } from './operations/prompts';
import { provisioningOperations } from './operations/provisioning';
import { publicChatOperations } from './operations/public-chat';
import { sourceOperations } from './operations/sources';
import { ssoOperations } from './operations/sso';

/**
 * Every endpoint of the backend. Each area appends its list here. Endpoints that take a plugin type build
 * their schemas from the plugin catalogue (the types registered at boot, npm packages included).
 */
export const allOperations = (plugins: PluginCatalogue): Operation[] => [
  ...platformOperations,
  ...identityOperations,
  ...ssoOperations,
  ...modelOperations,
  ...agentOperations,
  ...promptOperations,
  ...knowledgeOperations,
  ...graphOperations,
  ...sourceOperations(plugins.sources),
  ...chatOperations,
  ...openAiCompatOperations,
  ...publicChatOperations,
  ...groupOperations,
  ...jobOperations,
  ...provisioningOperations,
  ...accountSecurityOperations,
  ...contactOperations,
  ...channelOperations(plugins.channels),
  ...analyticsOperations,
];
