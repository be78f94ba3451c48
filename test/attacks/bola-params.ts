/**
 * How the BOLA generator fills an operation's identifiers. Path parameters and body/query fields are mapped to
 * a resource kind of tenant-world.ts (or to a literal, for values that are not tenant resources). An operation
 * with an identifier this file cannot map fails the coverage test, naming it: add the mapping (and the
 * resource to tenant-world.ts) when you add an endpoint.
 */

/** `{id}` means different resources under different prefixes (first match wins). */
const ID_BY_PREFIX: [RegExp, string][] = [
  [/^\/api\/bots\/\{id\}/, 'agent'],
  [/^\/api\/knowledge\/kb\/\{id\}/, 'knowledgeBase'],
  [/^\/api\/conversations\/\{id\}/, 'conversation'],
  [/^\/api\/api-keys\/\{id\}/, 'apiKey'],
  [/^\/api\/organizations\/\{orgId\}\/invitations\/\{id\}/, 'invitation'],
  [/^\/api\/admin\/organizations\/\{id\}/, 'organization'],
  [/^\/api\/admin\/users\/\{id\}/, 'user'],
  [/^\/api\/models\/\{id\}/, 'global:model'],
  [/^\/api\/contacts\/\{id\}/, 'contact'],
  // Superadmin-only administration: no tenant owns a provider (probes still run with a random id).
  [/^\/api\/admin\/sso-providers\/\{id\}/, 'literal:uuid'],
];

/** Named path parameters, body fields and query parameters (`[]` marks array items). */
const BY_NAME: Record<string, string> = {
  orgId: 'organization',
  userId: 'user',
  agentId: 'agent',
  botId: 'agent',
  docId: 'document',
  sourceId: 'source',
  versionId: 'promptVersion',
  convId: 'conversation',
  contactId: 'contact',
  groupId: 'group',
  jobId: 'job',
  lastEventId: 'literal:event-id',
  channelId: 'channel',
  entityId: 'graphEntity',
  mergeEntityIds: 'graphEntity',
  documentId: 'document',
  actorId: 'user',
  resourceId: 'literal:uuid',
  clientId: 'literal:client-id',
  // Not in the tenant world yet (suggestions need a generate job, builds an upstream channel): random ids.
  suggestionId: 'literal:uuid',
  suggestionIds: 'literal:uuid',
  buildId: 'literal:uuid',
  attachmentId: 'attachment',
  messageId: 'message',
  organizationId: 'organization',
  knowledgeBaseIds: 'knowledgeBase',
  'attachments[].id': 'attachment',
  slug: 'agentSlug',
  // the attacker's own visitor id: A's visitor ids are secrets of their browsers
  anonymousId: 'attacker:visitor',
  'tools[].toolDefinitionId': 'global:tool',
  version: 'literal:1',
  type: 'literal:system',
  // a static file of the API reference page: no tenant data
  file: 'literal:docs-asset',
  provider: 'global:provider',
  usecase: 'global:usecase',
  query: 'global:query',
};

/** Public-lane paths name the visitor's conversation `conversationId`; elsewhere it is a signed-in user's. */
export function resourceOf(path: string, name: string): string | null {
  if (name === 'id') return ID_BY_PREFIX.find(([re]) => re.test(path))?.[1] ?? null;
  if (name === 'conversationId') return path.startsWith('/api/public/') ? 'publicConversation' : 'conversation';
  return BY_NAME[name] ?? null;
}

/** Resources anyone may name by design (the public surface is slug-based); probes still run, a 2xx is fine. */
export const PUBLIC_BY_DESIGN = new Set(['agentSlug']);

export const LITERALS: Record<string, string> = {
  'literal:1': '1',
  'literal:system': 'system',
  'literal:event-id': '2026-01-01T00:00:00.000Z',
  'literal:uuid': '00000000-0000-4000-8000-000000000000',
  'literal:client-id': 'client-a',
  'literal:docs-asset': 'init.js',
  'global:model': 'local/extractive',
  'global:tool': 'web_search',
  'global:provider': 'local',
  'global:usecase': 'chat',
  'global:query': 'gpt',
};
