import type { Agent } from '../agents/agent';
import type { ChatCaller } from '../chat/chat-pipeline';
import { DomainError } from '../shared/errors';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The client-generated visitor id (spec 4.5, 5.4): a UUID, compared in lower case. */
export function requireAnonymousId(value: unknown): string {
  if (typeof value !== 'string' || !UUID.test(value)) {
    throw new DomainError('VALIDATION', 'anonymousId is required and must be a UUID generated once per visitor', [
      { field: 'anonymousId', message: 'must be a UUID' },
    ]);
  }
  return value.toLowerCase();
}

/**
 * An anonymous visitor as the conversation and chat code sees it: conversations of the agent's organization
 * carrying this anonymousId, nothing else. Public conversations have no userId (a verified user on the public
 * lane only unlocks restricted agents), and platform `web` (docs/contracts.md "Channels"); the anonymousId is the contact
 * identity (channel `web`).
 */
export function visitorOf(agent: Agent, anonymousId: string): ChatCaller {
  return {
    organizationId: agent.organizationId,
    userId: null,
    anonymousId,
    seesAll: false,
    platform: 'web',
    identity: { channel: 'web', identifier: anonymousId },
  };
}
