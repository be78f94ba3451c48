import type { Operation } from './operation';
import { accountSecurityOperations } from './operations/account-security';
import { agentOperations } from './operations/agents';
import { chatOperations } from './operations/chat';
import { identityOperations } from './operations/identity';
import { knowledgeOperations } from './operations/knowledge';
import { modelOperations } from './operations/models';
import { openAiCompatOperations } from './operations/openai-compat';
import { platformOperations } from './operations/platform';
import { promptOperations } from './operations/prompts';
import { publicChatOperations } from './operations/public-chat';
import { sourceOperations } from './operations/sources';

/** Every endpoint of the backend. Each area appends its list here. */
export const allOperations: Operation[] = [
  ...platformOperations,
  ...identityOperations,
  ...modelOperations,
  ...agentOperations,
  ...promptOperations,
  ...knowledgeOperations,
  ...sourceOperations,
  ...chatOperations,
  ...openAiCompatOperations,
  ...publicChatOperations,
  ...accountSecurityOperations,
];
