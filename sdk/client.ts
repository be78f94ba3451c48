import { Http, type HttpOptions, readSse, type RequestOptions } from './http';
import type {
  Agent,
  AgentInput,
  AgentVersion,
  AnalyticsOverview,
  AnalyticsRange,
  ApiKey,
  AuditEntry,
  ChatMessage,
  Contact,
  ContactFilters,
  DailyPoint,
  Distribution,
  InboxConversation,
  Invitation,
  JobEvent,
  KbDocument,
  KnowledgeBase,
  Member,
  OperatorEventType,
  Page,
  PromptLive,
  PromptSection,
  PromptVersionItem,
  RegisterInput,
  SearchResult,
  Session,
  User,
  Wallet,
} from './types';

const enc = encodeURIComponent;
type Query = RequestOptions['query'];

/**
 * The typed client of the platform's public API (JWT surface) that the operator console is built on. Each
 * method is one documented operation; errors arrive as PlatformError with the platform's `{error, code}`.
 */
export class PlatformClient {
  readonly http: Http;

  constructor(options: HttpOptions = {}) {
    this.http = new Http(options);
  }

  get session(): Session | null {
    return this.http.sessions.load();
  }

  /** The active organization: the first of the token's organizations (spec 5.1). */
  get organizationId(): string | null {
    return this.session?.user.organizations[0]?.id ?? null;
  }

  private get<T>(path: string, query?: Query) {
    return this.http.json<T>('GET', path, { query });
  }
  private send<T>(method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown) {
    return this.http.json<T>(method, path, { body });
  }

  // Sign-in (spec 4.1)
  async register(input: RegisterInput): Promise<Session> {
    const { data } = await this.http.json<{ data: Session }>('POST', '/api/auth/register', { body: input, anonymous: true });
    this.http.sessions.save(data);
    return data;
  }
  async login(email: string, password: string): Promise<Session> {
    const { data } = await this.http.json<{ data: Session }>('POST', '/api/auth/login', { body: { email, password }, anonymous: true });
    this.http.sessions.save(data);
    return data;
  }
  /** Makes another of the user's organizations the active one; both new tokens replace the session (spec 5.1). */
  async switchOrganization(organizationId: string): Promise<Session> {
    const { data } = await this.http.json<{ data: Session }>('POST', '/api/auth/switch-org', { body: { organizationId } });
    this.http.sessions.save(data);
    return data;
  }
  acceptInvitation(token: string) {
    return this.send<{ organization: { id: string; name: string; slug: string; role: string } }>('POST', '/api/invitations/accept', {
      token,
    });
  }
  signOut(): void {
    this.http.sessions.save(null);
  }
  me() {
    return this.get<{ user: User }>('/api/auth/me');
  }

  // Knowledge bases and documents (spec 4.6, 4.7)
  listKnowledgeBases(page: Page = {}) {
    return this.get<{ knowledgeBases: KnowledgeBase[]; total: number }>('/api/knowledge/kb', { ...page });
  }
  createKnowledgeBase(input: { name: string; description?: string }) {
    return this.send<{ knowledgeBase: KnowledgeBase }>('POST', '/api/knowledge/kb', input);
  }
  getKnowledgeBase(id: string) {
    return this.get<{ knowledgeBase: KnowledgeBase }>(`/api/knowledge/kb/${enc(id)}`);
  }
  listDocuments(kbId: string, page: Page = {}) {
    return this.get<{ documents: KbDocument[]; total: number }>(`/api/knowledge/kb/${enc(kbId)}/documents`, { ...page });
  }
  uploadDocument(kbId: string, file: Blob, filename: string) {
    const form = new FormData();
    form.append('file', file, filename);
    return this.http.json<{ document: KbDocument; jobId: string; message: string }>('POST', `/api/knowledge/kb/${enc(kbId)}/documents`, {
      form,
    });
  }
  retryDocument(kbId: string, docId: string) {
    return this.send<{ documentId: string; jobId: string }>('POST', `/api/knowledge/kb/${enc(kbId)}/documents/${enc(docId)}/retry`);
  }

  // Jobs (DECISIONS "Jobs")
  getJob(jobId: string) {
    return this.get<JobEvent>(`/api/jobs/${enc(jobId)}`);
  }
  /**
   * Follows a job until its terminal event: the SSE stream (replays the current state, then streams), reconnecting
   * with lastEventId when it drops, and polling when the stream cannot be opened. Resolves with the last event.
   */
  async watchJob(jobId: string, onEvent: (e: JobEvent) => void, signal?: AbortSignal): Promise<JobEvent> {
    let last: JobEvent | null = null;
    const terminal = (e: JobEvent | null) => e?.status === 'completed' || e?.status === 'failed';
    for (let attempt = 0; !terminal(last) && attempt < 20 && !signal?.aborted; attempt++) {
      try {
        const response = await this.http.raw('GET', `/api/jobs/${enc(jobId)}/events`, {
          accept: 'text/event-stream',
          query: { lastEventId: last?.emittedAt },
          signal,
        });
        if (response.status === 204) break;
        for await (const frame of readSse(response)) {
          last = JSON.parse(frame.data) as JobEvent;
          onEvent(last);
        }
      } catch (e) {
        if (signal?.aborted) break;
        if ((e as { status?: number }).status === 404) throw e;
        last = await this.getJob(jobId);
        onEvent(last);
        if (!terminal(last)) await new Promise((r) => setTimeout(r, 1000));
      }
    }
    return last ?? this.getJob(jobId);
  }

  // Agents (spec 4.2, DECISIONS "Publishing without review", "Public distribution")
  listAgents(page: Page = {}) {
    return this.get<{ bots: Agent[]; pagination: { total: number } }>('/api/bots', { ...page });
  }
  getAgent(id: string) {
    return this.get<Agent & { knowledgeBases?: { id?: string; name: string }[] }>(`/api/bots/${enc(id)}`);
  }
  async createAgent(input: AgentInput & { name: string; knowledgeBaseIds: string[] }) {
    return (await this.send<{ bot: Agent }>('POST', '/api/bots', input)).bot;
  }
  async updateAgent(id: string, input: AgentInput & { notes?: string }) {
    return (await this.send<{ bot: Agent }>('PUT', `/api/bots/${enc(id)}`, input)).bot;
  }
  listAgentVersions(id: string) {
    return this.get<{ versions: AgentVersion[]; total: number }>(`/api/bots/${enc(id)}/versions`);
  }
  submitForReview(id: string) {
    return this.send<{ bot: Agent; status: string }>('POST', `/api/bots/${enc(id)}/submit-review`);
  }
  approveAgent(id: string) {
    return this.send<{ bot: Agent; status: string }>('POST', `/api/bots/${enc(id)}/approve`);
  }
  rejectAgent(id: string, feedback: string) {
    return this.send<{ bot: Agent; status: string }>('POST', `/api/bots/${enc(id)}/reject`, { feedback });
  }
  publishAgent(id: string) {
    return this.send<{ bot: Agent; status: string }>('POST', `/api/bots/${enc(id)}/publish`);
  }
  publishDistribution(id: string, input: { slug?: string; require_org_membership?: boolean } = {}) {
    return this.send<Distribution>('POST', `/api/bots/${enc(id)}/distribution/publish`, input);
  }

  // Prompt configuration versions (spec 4.3)
  listPromptVersions(agentId: string) {
    return this.get<{ versions: PromptVersionItem[]; total: number; live: PromptLive | null }>(
      `/api/bots/${enc(agentId)}/prompt-config-versions`,
    );
  }
  getPromptVersion(agentId: string, versionId: string) {
    return this.get<{ version: PromptVersionItem; items: PromptSection[] }>(
      `/api/bots/${enc(agentId)}/prompt-config-versions/${enc(versionId)}`,
    );
  }
  savePromptVersion(agentId: string, input: { sections: PromptSection[]; bumpType?: 'major' | 'minor'; label?: string }) {
    return this.send<{ version: { id: string; versionMajor: number; versionMinor: number } }>(
      'POST',
      `/api/bots/${enc(agentId)}/prompt-config-versions`,
      input,
    );
  }
  publishPromptVersion(agentId: string, versionId: string) {
    return this.send<{ live: PromptLive; previous: PromptLive | null }>('PUT', `/api/bots/${enc(agentId)}/prompt-live`, { versionId });
  }

  // Operator inbox (DECISIONS "Operator inbox") and presence events
  listAgentConversations(agentId: string, query: Page & { platform?: string } = {}) {
    return this.get<{ conversations: InboxConversation[]; total: number }>(`/api/bots/${enc(agentId)}/conversations`, { ...query });
  }
  listAgentConversationMessages(agentId: string, conversationId: string) {
    return this.get<{ messages: ChatMessage[] }>(`/api/bots/${enc(agentId)}/conversations/${enc(conversationId)}/messages`);
  }
  sendOperatorEvent(agentId: string, conversationId: string, type: OperatorEventType, message?: string) {
    return this.send<{ event: unknown }>('POST', `/api/bots/${enc(agentId)}/conversations/${enc(conversationId)}/operator-events`, {
      type,
      ...(message !== undefined ? { message } : {}),
    });
  }

  // Search playground (spec 4.9)
  search(input: { knowledgeBaseIds: string[]; query: string; topK?: number }) {
    return this.http.json<{ results: SearchResult[]; suggestedFollowUps: string[] }>('POST', '/api/knowledge/search', {
      body: input,
      query: { source: 'manual' },
    });
  }

  // Contacts (spec 4.11)
  listContacts(filters: ContactFilters & Page = {}) {
    return this.get<{ contacts: Contact[]; total: number }>('/api/contacts', { ...filters });
  }
  /** The CSV export (same filters as the list) as a Blob, ready to save. */
  async exportContacts(filters: ContactFilters = {}): Promise<Blob> {
    return (await this.http.raw('GET', '/api/contacts/export', { query: { ...filters }, accept: 'text/csv' })).blob();
  }

  // Analytics (spec 4.12)
  analyticsOverview(range: AnalyticsRange) {
    return this.get<AnalyticsOverview>('/api/analytics/overview', { ...range });
  }
  analyticsDaily(range: AnalyticsRange) {
    return this.get<DailyPoint[]>('/api/analytics/daily', { ...range });
  }

  // Organization: members, invitations, seats (DECISIONS "Invitations and seats")
  listMembers(orgId: string) {
    return this.get<{ members: Member[] }>(`/api/organizations/${enc(orgId)}/members`);
  }
  listInvitations(orgId: string) {
    return this.get<{ invitations: Invitation[] }>(`/api/organizations/${enc(orgId)}/invitations`);
  }
  createInvitation(orgId: string, input: { email: string; role: 'admin' | 'member' | 'viewer' }) {
    return this.send<{ invitation: Invitation; token: string }>('POST', `/api/organizations/${enc(orgId)}/invitations`, input);
  }
  revokeInvitation(orgId: string, id: string) {
    return this.send<void>('DELETE', `/api/organizations/${enc(orgId)}/invitations/${enc(id)}`);
  }
  seats(orgId: string) {
    return this.get<{ usedSeats: number; totalSeats: number; pendingInvitations: number }>(`/api/organizations/${enc(orgId)}/seats`);
  }

  // API keys (DECISIONS "API keys")
  listApiKeys() {
    return this.get<{ apiKeys: ApiKey[] }>('/api/api-keys');
  }
  createApiKey(input: { name: string; scopes: string[] }) {
    return this.send<{ apiKey: ApiKey; key: string }>('POST', '/api/api-keys', input);
  }
  revokeApiKey(id: string) {
    return this.send<void>('DELETE', `/api/api-keys/${enc(id)}`);
  }

  // Wallet and audit log
  wallet() {
    return this.get<Wallet>('/api/billing/wallet');
  }
  auditLog(query: Page & { action?: string } = {}) {
    return this.get<{ entries: AuditEntry[]; total: number }>('/api/audit-logs', { ...query });
  }
}
