import type { Agent } from '../agents/agent';
import { DomainError } from '../shared/errors';
import type { ChatDeps } from './chat-deps';
import { CHAT_LIMITS } from './chat-limits';

export interface AttachmentRef {
  id: string;
  accessToken: string;
}

/** Body of `POST /api/bots/:id/chat` and preview-chat (spec 4.4). */
export interface ChatInput {
  message: string;
  conversationId?: string;
  stream?: boolean;
  variables?: Record<string, unknown>;
  attachments?: AttachmentRef[];
  includeVoice?: boolean;
  systemPrompt?: string;
}

const invalid = (message: string, field: string) => new DomainError('VALIDATION', message, [{ field, message }]);

/** Variables are a flat-ish JSON object of bounded size: names are identifiers, values JSON. */
export function checkVariables(variables: unknown, field = 'variables'): Record<string, unknown> {
  if (variables === undefined || variables === null) return {};
  if (typeof variables !== 'object' || Array.isArray(variables)) throw invalid(`${field} must be an object`, field);
  const entries = Object.entries(variables as Record<string, unknown>);
  if (entries.length > CHAT_LIMITS.variables) throw invalid(`${field} may hold at most ${CHAT_LIMITS.variables} variables`, field);
  for (const [name, value] of entries) {
    if (!/^[A-Za-z_][\w.-]{0,99}$/.test(name))
      throw invalid(
        `${field}: "${name}" is not a valid variable name (letters, digits, _ . -; starting with a letter or _)`,
        `${field}.${name}`,
      );
    const size = typeof value === 'string' ? value.length : JSON.stringify(value ?? null).length;
    if (size > CHAT_LIMITS.variableChars)
      throw invalid(`${field}.${name} is longer than ${CHAT_LIMITS.variableChars} characters`, `${field}.${name}`);
  }
  return variables as Record<string, unknown>;
}

/**
 * Step 1 of the pipeline: the input rules of spec 4.4 and 8 that depend on the agent. Streaming is not an
 * error when the agent has it off (the answer is JSON instead); voice is.
 */
export function validateChatInput(deps: Pick<ChatDeps, 'speech'>, agent: Agent, input: ChatInput): { stream: boolean } {
  if (typeof input.message !== 'string' || input.message.trim().length === 0)
    throw invalid('message is required (1-10,000 characters)', 'message');
  if (input.message.length > CHAT_LIMITS.messageChars)
    throw invalid(`message must be at most ${CHAT_LIMITS.messageChars} characters`, 'message');
  if (input.systemPrompt !== undefined && input.systemPrompt !== null) {
    if (typeof input.systemPrompt !== 'string') throw invalid('systemPrompt must be a string', 'systemPrompt');
    if (input.systemPrompt.length > CHAT_LIMITS.systemPromptChars)
      throw invalid(`systemPrompt must be at most ${CHAT_LIMITS.systemPromptChars} characters`, 'systemPrompt');
  }
  const attachments = input.attachments ?? [];
  if (!Array.isArray(attachments)) throw invalid('attachments must be an array of {id, accessToken}', 'attachments');
  if (attachments.length > CHAT_LIMITS.attachments)
    throw invalid(`At most ${CHAT_LIMITS.attachments} attachments per message`, 'attachments');
  for (const a of attachments) {
    if (!a || typeof a.id !== 'string' || !a.id || typeof a.accessToken !== 'string' || !a.accessToken)
      throw invalid('Each attachment needs an id and an accessToken', 'attachments');
  }
  if (attachments.length > 0 && !agent.fileUploadsEnabled)
    throw invalid('This agent does not accept attachments (file uploads are disabled)', 'attachments');
  checkVariables(input.variables);
  if (input.includeVoice) {
    if (!agent.voiceEnabled) throw invalid('includeVoice needs voice to be enabled on this agent (voiceEnabled)', 'includeVoice');
    if (!deps.speech) throw invalid('Voice output is not available: no speech provider is configured on this platform', 'includeVoice');
  }
  return { stream: input.stream === true && agent.streamingEnabled };
}
