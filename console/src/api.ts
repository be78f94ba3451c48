import { PlatformClient, type Session, type SessionStore } from '../../sdk';

const KEY = 'agent-platform.session';

/** The session survives reloads in localStorage (the console is same-origin with the API). */
const localSessions: SessionStore = {
  load() {
    try {
      const raw = localStorage.getItem(KEY);
      return raw ? (JSON.parse(raw) as Session) : null;
    } catch {
      return null;
    }
  },
  save(session) {
    if (session) localStorage.setItem(KEY, JSON.stringify(session));
    else localStorage.removeItem(KEY);
  },
};

export const api = new PlatformClient({ sessions: localSessions });

/*
 * Calls the SDK has no method for yet (channels, sources, the knowledge graph, takeover state). They go through
 * the SDK's own HTTP layer (same session, same PlatformError), and live here so the SDK can be regenerated freely.
 */
const enc = encodeURIComponent;
type Query = Record<string, string | number | boolean | undefined>;
const get = <T>(path: string, query?: Query) => api.http.json<T>('GET', path, { query });
const send = <T>(method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown) => api.http.json<T>(method, path, { body });

// Operator inbox with the takeover state (issue 15)
export interface Takeover {
  operator: { displayName: string };
  since: string;
}
export interface InboxMessage {
  id: string;
  role: 'user' | 'assistant' | 'system';
  content: string;
  createdAt: string;
  operator?: { displayName: string };
  /** A visitor message written during a takeover: the agent left it to the operator. */
  heldForOperator?: boolean;
}
export const conversationMessages = (agentId: string, conversationId: string) =>
  get<{ messages: InboxMessage[]; takeover: Takeover | null }>(`/api/bots/${enc(agentId)}/conversations/${enc(conversationId)}/messages`);

// Agent channels (docs/contracts.md "Channels")
export interface Channel {
  id: string;
  botId: string;
  type: string;
  label: string;
  isActive: boolean;
  config: Record<string, unknown>;
  createdAt: string;
  inboundUrl: string;
}
export interface ChannelInput {
  type: string;
  label: string;
  config: Record<string, unknown>;
  secrets: Record<string, string>;
}
export type ChannelPatch = Partial<Pick<ChannelInput, 'label' | 'config' | 'secrets'>> & { isActive?: boolean };
const channelsOf = (agentId: string) => `/api/bots/${enc(agentId)}/channels`;
export const listChannels = (agentId: string) => get<{ channels: Channel[] }>(channelsOf(agentId));
export const createChannel = (agentId: string, input: ChannelInput) => send<{ channel: Channel }>('POST', channelsOf(agentId), input);
export const updateChannel = (agentId: string, channelId: string, patch: ChannelPatch) =>
  send<{ channel: Channel }>('PATCH', `${channelsOf(agentId)}/${enc(channelId)}`, patch);
export const deleteChannel = (agentId: string, channelId: string) => send<void>('DELETE', `${channelsOf(agentId)}/${enc(channelId)}`);

// Knowledge-base sources (spec 4.7)
export interface Source {
  id: string;
  knowledgeBaseId: string;
  url: string;
  sourceType: string;
  syncEnabled: boolean;
  syncFrequencyMinutes: number;
  lastSyncedAt: string | null;
  nextSyncAt: string | null;
  syncHealth: 'pending' | 'healthy' | 'failing' | string;
  lastSyncError: string | null;
  itemCount: number;
  createdAt?: string;
}
const sourcesOf = (kbId: string) => `/api/knowledge/kb/${enc(kbId)}/sources`;
export const listSources = (kbId: string) => get<{ sources: Source[]; count: number }>(sourcesOf(kbId));
export const addSource = (kbId: string, input: { url: string; sourceType: string; syncEnabled?: boolean }) =>
  send<{ source: Source; jobId: string; message: string }>('POST', `${sourcesOf(kbId)}/url`, input);
export const syncSource = (kbId: string, sourceId: string) =>
  send<{ message: string; sourceId: string; jobId: string }>('POST', `${sourcesOf(kbId)}/${enc(sourceId)}/sync`, {});
export const deleteSource = (kbId: string, sourceId: string) => send<void>('DELETE', `${sourcesOf(kbId)}/${enc(sourceId)}`);

// Knowledge graph (spec 4.8)
export interface GraphEntity {
  id: string;
  name: string;
  type: string;
  aliases: string[];
  description?: string | null;
  mentionCount: number;
  documentIds: string[];
  createdAt: string;
}
export interface GraphRelationship {
  id: string;
  sourceEntityId: string;
  targetEntityId: string;
  type: string;
  weight: number;
  documentId: string;
}
export type SuggestionStatus = 'pending' | 'approved' | 'rejected' | 'applied';
export interface GraphSuggestion {
  id: string;
  type: string;
  status: SuggestionStatus;
  entityIds?: string[];
  payload?: Record<string, unknown>;
  reason?: string;
  confidence?: number;
  resolvedBy?: 'user' | 'ai' | null;
  createdAt?: string;
}
export interface GraphIssue {
  kind: 'suggestion' | 'entity';
  category: string;
  suggestion?: GraphSuggestion;
  entity?: GraphEntity;
}
const graphOf = (kbId: string) => `/api/knowledge/kb/${enc(kbId)}/graph`;
export const graphStats = (kbId: string) =>
  get<{ stats: { totalEntities: number; totalRelationships: number; entitiesByType: Record<string, number> } }>(`${graphOf(kbId)}/stats`);
export const listEntities = (kbId: string, q: { type?: string; search?: string; limit?: number; offset?: number }) =>
  get<{ entities: GraphEntity[]; total: number }>(`${graphOf(kbId)}/entities`, q);
export const getEntity = (kbId: string, entityId: string) =>
  get<{ entity: GraphEntity; connectedEntities: GraphEntity[]; relationships: GraphRelationship[] }>(
    `${graphOf(kbId)}/entities/${enc(entityId)}`,
  );
export const graphIssues = (kbId: string, q: { category?: string; limit?: number; offset?: number }) =>
  get<{ issues: GraphIssue[]; total: number; counts: Record<string, number>; category: string }>(`${graphOf(kbId)}/issues`, q);
export const listSuggestions = (kbId: string, q: { status?: string; type?: string; limit?: number }) =>
  get<{ suggestions: GraphSuggestion[]; total: number }>(`${graphOf(kbId)}/optimize/suggestions`, q);
export const generateSuggestions = (kbId: string) => send<{ message: string; jobId: string }>('POST', `${graphOf(kbId)}/optimize/generate`);
export const setSuggestionStatus = (kbId: string, suggestionId: string, status: 'approved' | 'rejected') =>
  send<{ suggestion: GraphSuggestion }>('PATCH', `${graphOf(kbId)}/optimize/suggestions/${enc(suggestionId)}`, { status });
export const applySuggestions = (kbId: string, suggestionIds: string[]) =>
  send<{ applied: number; failed: number; errors: { suggestionId: string; error: string }[] }>('POST', `${graphOf(kbId)}/optimize/apply`, {
    suggestionIds,
  });
