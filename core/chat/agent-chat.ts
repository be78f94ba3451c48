import { loadAgent } from '../agents/agent-access';
import { viewerOf } from '../conversations/conversation-access';
import type { Actor } from '../identity/actor';
import type { ChatDeps } from './chat-deps';
import type { ChatInput } from './chat-input';
import { prepareChat, type PreparedChat } from './chat-pipeline';

/**
 * `POST /api/bots/:id/chat` (live prompt configuration) and `/preview-chat` (draft): needs `use` on the agent;
 * another organization's agent or conversation is 404. Returns the prepared turn: the HTTP edge then picks
 * JSON or SSE (`prepared.stream`) and calls `runChat`.
 */
export async function prepareAgentChat(
  deps: ChatDeps,
  actor: Actor,
  agentId: string,
  input: ChatInput,
  mode: 'chat' | 'preview',
): Promise<PreparedChat> {
  const agent = await loadAgent(deps.store.repos, actor, agentId, 'use');
  const caller = { ...viewerOf(actor), platform: mode === 'preview' ? 'preview' : 'web' };
  return prepareChat(deps, { agent, caller, input, promptSource: mode === 'preview' ? 'draft' : 'live' });
}
