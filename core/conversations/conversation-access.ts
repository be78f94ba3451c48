import type { Agent } from '../agents/agent';
import type { Actor } from '../identity/actor';
import { hasOrgPermission } from '../identity/policy';
import type { Repositories } from '../ports/repositories';
import type { TemplateValues } from '../prompts/template';
import { DomainError } from '../shared/errors';
import type { Conversation, VariableValues } from './conversation';

/** Who is reading or continuing a conversation. */
export interface ConversationViewer {
  organizationId: string;
  /** Signed-in user (null for API keys and anonymous visitors). */
  userId: string | null;
  /** Anonymous visitor of the public surface. */
  anonymousId?: string | null;
  /** Owners and admins see every conversation of their organization. */
  seesAll: boolean;
}

/** A signed-in member: their own conversations; owners and admins (member management) all of the organization's. */
export function viewerOf(actor: Actor): ConversationViewer {
  if (!actor.organizationId || !actor.orgRole) throw new DomainError('FORBIDDEN', 'You are not a member of an organization');
  return { organizationId: actor.organizationId, userId: actor.userId, seesAll: hasOrgPermission(actor.orgRole, 'org.manage_members') };
}

export function canSee(viewer: ConversationViewer, c: Conversation): boolean {
  if (c.organizationId !== viewer.organizationId || c.deletedAt) return false;
  if (viewer.seesAll) return true;
  if (viewer.userId && c.userId === viewer.userId) return true;
  return !!viewer.anonymousId && c.anonymousId === viewer.anonymousId;
}

export const conversationNotFound = () => new DomainError('NOT_FOUND', 'Conversation not found');

/** The conversation if the viewer may see it (and, when given, it belongs to the agent); else 404. */
export async function loadConversation(
  repos: Repositories,
  viewer: ConversationViewer,
  id: string,
  agentId?: string,
): Promise<Conversation> {
  const c = await repos.conversations.findById(viewer.organizationId, id);
  if (!c || !canSee(viewer, c) || (agentId !== undefined && c.agentId !== agentId)) throw conversationNotFound();
  return c;
}

/**
 * Values of the `{{namespace.name}}` variables (docs/contracts.md "Template variable namespaces"): `user` holds the
 * client-supplied variables, sensitive ones included (usable in prompts, never returned).
 */
export function templateValues(
  agent: Pick<Agent, 'id' | 'name' | 'description' | 'model'>,
  org: { id: string; name: string } | null,
  conversation: Pick<Conversation, 'id' | 'platform' | 'title'>,
  variables: VariableValues,
  sensitive: VariableValues,
): TemplateValues {
  return {
    agent: { id: agent.id, name: agent.name, description: agent.description, model: agent.model },
    org: org ? { id: org.id, name: org.name } : {},
    user: { ...variables, ...sensitive },
    conversation: { id: conversation.id, platform: conversation.platform, title: conversation.title ?? '' },
    contact: {},
  };
}
