/**
 * The default tool set a provisioned agent gets from the build's `intent` (spec 4.13: "drives default tool
 * set"). Support and sales agents keep `update_contact` on, so visitors who leave their details become reachable
 * contacts; a community agent only converses, so the tool is listed disabled. No intent (or one the platform does
 * not know) leaves the platform defaults: no explicit tools.
 */
import type { AgentTool } from '../agents/agent';
import { UPDATE_CONTACT } from '../chat/chat-tools';

const INTENT_TOOLS: Record<string, AgentTool[]> = {
  support: [{ toolDefinitionId: UPDATE_CONTACT, isEnabled: true }],
  sales: [{ toolDefinitionId: UPDATE_CONTACT, isEnabled: true }],
  community: [{ toolDefinitionId: UPDATE_CONTACT, isEnabled: false }],
};

export function defaultToolsFor(intent: string | null): AgentTool[] {
  return (intent && INTENT_TOOLS[intent]?.map((tool) => ({ ...tool }))) || [];
}
