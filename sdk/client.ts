import { createPlatformApi, type PlatformApi, unwrap } from './api';
import { Http, type HttpOptions, readSse } from './http';
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
const path = (id: string) => ({ path: { id } });

/**
 * The typed client of the platform's public API (JWT surface) that the operator console is built on. Each
 * method is one documented operation called through the generated client (`api`, openapi-fetch typed by
 * sdk/schema.d.ts), so paths, parameters and bodies are checked against the OpenAPI document at compile time
 * and the declared results must be assignable from its responses. Errors arrive as PlatformError with the
 * platform's `{error, code}`. Operations without a method here are reachable through `api` directly.
 */
export class PlatformClient {
  readonly http: Http;
  readonly api: PlatformApi;

  constructor(options: HttpOptions = {}) {
    this.http = new Http(options);
    this.api = createPlatformApi(this.http);
  }

  get session(): Session | null {
    return this.http.sessions.load();
  }

  /** The active organization: the first of the token's organizations (spec 5.1). */
  get organizationId(): string | null {
    return this.session?.user.organizations[0]?.id ?? null;
  }

  // Sign-in (spec 4.1)
  async register(input: RegisterInput): Promise<Session> {
    const { data } = await unwrap(this.api.POST('/api/auth/register', { body: input, fetch: this.http.anonymousFetch }));
    return this.keep(data);
  }
  async login(email: string, password: string): Promise<Session> {
    const { data } = await unwrap(this.api.POST('/api/auth/login', { body: { email, password }, fetch: this.http.anonymousFetch }));
    return this.keep(data);
  }
  /** Makes another of the user's organizations the active one; both new tokens replace the session (spec 5.1). */
  async switchOrganization(organizationId: string): Promise<Session> {
    const { data } = await unwrap(this.api.POST('/api/auth/switch-org', { body: { organizationId } }));
    return this.keep(data);
  }
  private keep(session: Session): Session {
    this.http.sessions.save(session);
    return session;
  }
  acceptInvitation(token: string): Promise<{ organization: { id: string; name: string; slug: string; role: string } }> {
    return unwrap(this.api.POST('/api/invitations/accept', { body: { token } }));
  }
  signOut(): void {
    this.http.sessions.save(null);
  }
  me(): Promise<{ user: User }> {
    return unwrap(this.api.GET('/api/auth/me'));
  }

  // Knowledge bases and documents (spec 4.6, 4.7)
  listKnowledgeBases(page: Page = {}): Promise<{ knowledgeBases: KnowledgeBase[]; total: number }> {
    return unwrap(this.api.GET('/api/knowledge/kb', { params: { query: page } }));
  }
  createKnowledgeBase(input: { name: string; description?: string }): Promise<{ knowledgeBase: KnowledgeBase }> {
    return unwrap(this.api.POST('/api/knowledge/kb', { body: input }));
  }
  getKnowledgeBase(id: string): Promise<{ knowledgeBase: KnowledgeBase }> {
    return unwrap(this.api.GET('/api/knowledge/kb/{id}', { params: path(id) }));
  }
  listDocuments(kbId: string, page: Page = {}): Promise<{ documents: KbDocument[]; total: number }> {
    return unwrap(this.api.GET('/api/knowledge/kb/{id}/documents', { params: { path: { id: kbId }, query: page } }));
  }
  /**
   * Uploads one file (201 for a new document). The same bytes already in the knowledge base answer 200 with the
   * existing document and no job, unless `allowDuplicate` is set.
   */
  uploadDocument(
    kbId: string,
    file: Blob,
    filename: string,
    options: { allowDuplicate?: boolean } = {},
  ): Promise<{ document: KbDocument; jobId?: string | null; message: string; duplicate?: boolean }> {
    const form = new FormData();
    form.append('file', file, filename);
    return unwrap(
      this.api.POST('/api/knowledge/kb/{id}/documents', {
        params: { path: { id: kbId }, query: options.allowDuplicate ? { allowDuplicate: true } : {} },
        body: form as never,
        bodySerializer: (b: unknown) => b as FormData,
      }),
    ) as never;
  }
  retryDocument(kbId: string, docId: string): Promise<{ documentId: string; jobId: string }> {
    return unwrap(this.api.POST('/api/knowledge/kb/{id}/documents/{docId}/retry', { params: { path: { id: kbId, docId } }, body: {} }));
  }

  // Jobs (docs/contracts.md "Jobs")
  getJob(jobId: string): Promise<JobEvent> {
    return unwrap(this.api.GET('/api/jobs/{jobId}', { params: { path: { jobId } } }));
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

  // Agents (spec 4.2, docs/contracts.md "Publishing without review", "Public distribution")
  listAgents(page: Page = {}): Promise<{ bots: Agent[]; pagination: { total: number } }> {
    return unwrap(this.api.GET('/api/bots', { params: { query: page } }));
  }
  getAgent(id: string): Promise<Agent & { knowledgeBases?: { id?: string; name?: string }[] }> {
    return unwrap(this.api.GET('/api/bots/{id}', { params: path(id) }));
  }
  async createAgent(input: AgentInput & { name: string; knowledgeBaseIds: string[] }): Promise<Agent> {
    return (await unwrap(this.api.POST('/api/bots', { body: input }))).bot;
  }
  async updateAgent(id: string, input: AgentInput & { notes?: string }): Promise<Agent> {
    return (await unwrap(this.api.PUT('/api/bots/{id}', { params: path(id), body: input }))).bot;
  }
  listAgentVersions(id: string): Promise<{ versions: AgentVersion[]; total: number }> {
    return unwrap(this.api.GET('/api/bots/{id}/versions', { params: path(id) }));
  }
  submitForReview(id: string): Promise<{ bot: Agent; status: string }> {
    return unwrap(this.api.POST('/api/bots/{id}/submit-review', { params: path(id) }));
  }
  approveAgent(id: string): Promise<{ bot: Agent; status: string }> {
    return unwrap(this.api.POST('/api/bots/{id}/approve', { params: path(id) }));
  }
  rejectAgent(id: string, feedback: string): Promise<{ bot: Agent; status: string }> {
    return unwrap(this.api.POST('/api/bots/{id}/reject', { params: path(id), body: { feedback } }));
  }
  publishAgent(id: string): Promise<{ bot: Agent; status: string }> {
    return unwrap(this.api.POST('/api/bots/{id}/publish', { params: path(id) }));
  }
  publishDistribution(id: string, input: { slug?: string; require_org_membership?: boolean } = {}): Promise<Distribution> {
    return unwrap(this.api.POST('/api/bots/{id}/distribution/publish', { params: path(id), body: input }));
  }

  // Prompt configuration versions (spec 4.3)
  listPromptVersions(agentId: string): Promise<{ versions: PromptVersionItem[]; total?: number; live: PromptLive | null }> {
    return unwrap(this.api.GET('/api/bots/{id}/prompt-config-versions', { params: path(agentId) }));
  }
  getPromptVersion(agentId: string, versionId: string): Promise<{ version: PromptVersionItem; items: PromptSection[] }> {
    return unwrap(this.api.GET('/api/bots/{id}/prompt-config-versions/{versionId}', { params: { path: { id: agentId, versionId } } }));
  }
  savePromptVersion(
    agentId: string,
    input: { sections: PromptSection[]; bumpType?: 'major' | 'minor'; label?: string },
  ): Promise<{ version: { id: string; versionMajor: number; versionMinor: number } }> {
    return unwrap(this.api.POST('/api/bots/{id}/prompt-config-versions', { params: path(agentId), body: input }));
  }
  publishPromptVersion(agentId: string, versionId: string): Promise<{ live: PromptLive; previous: PromptLive | null }> {
    return unwrap(this.api.PUT('/api/bots/{id}/prompt-live', { params: path(agentId), body: { versionId } }));
  }

  // Operator inbox (docs/contracts.md "Operator inbox") and presence events
  listAgentConversations(
    agentId: string,
    query: Page & { platform?: string } = {},
  ): Promise<{ conversations: InboxConversation[]; total: number }> {
    return unwrap(this.api.GET('/api/bots/{id}/conversations', { params: { path: { id: agentId }, query } }));
  }
  listAgentConversationMessages(agentId: string, conversationId: string): Promise<{ messages: ChatMessage[] }> {
    return unwrap(
      this.api.GET('/api/bots/{id}/conversations/{convId}/messages', { params: { path: { id: agentId, convId: conversationId } } }),
    );
  }
  sendOperatorEvent(agentId: string, conversationId: string, type: OperatorEventType, message?: string): Promise<{ event: unknown }> {
    return unwrap(
      this.api.POST('/api/bots/{id}/conversations/{convId}/operator-events', {
        params: { path: { id: agentId, convId: conversationId } },
        body: { type, ...(message !== undefined ? { message } : {}) },
      }),
    );
  }

  // Search playground (spec 4.9)
  search(input: {
    knowledgeBaseIds: string[];
    query: string;
    topK?: number;
  }): Promise<{ results: SearchResult[]; suggestedFollowUps: string[] }> {
    return unwrap(this.api.POST('/api/knowledge/search', { params: { query: { source: 'manual' } }, body: input }));
  }

  // Contacts (spec 4.11)
  listContacts(filters: ContactFilters & Page = {}): Promise<{ contacts: Contact[]; total: number }> {
    return unwrap(this.api.GET('/api/contacts', { params: { query: filters } }));
  }
  /** The CSV export (same filters as the list) as a Blob, ready to save. */
  async exportContacts(filters: ContactFilters = {}): Promise<Blob> {
    return (await this.http.raw('GET', '/api/contacts/export', { query: { ...filters }, accept: 'text/csv' })).blob();
  }

  // Analytics (spec 4.12)
  analyticsOverview(range: AnalyticsRange): Promise<AnalyticsOverview> {
    return unwrap(this.api.GET('/api/analytics/overview', { params: { query: range } }));
  }
  analyticsDaily(range: AnalyticsRange): Promise<DailyPoint[]> {
    return unwrap(this.api.GET('/api/analytics/daily', { params: { query: range } }));
  }

  // Organization: members, invitations, seats (docs/contracts.md "Invitations and seats")
  listMembers(orgId: string): Promise<{ members: Member[] }> {
    return unwrap(this.api.GET('/api/organizations/{orgId}/members', { params: { path: { orgId } } }));
  }
  listInvitations(orgId: string): Promise<{ invitations: Invitation[] }> {
    return unwrap(this.api.GET('/api/organizations/{orgId}/invitations', { params: { path: { orgId } } }));
  }
  createInvitation(
    orgId: string,
    input: { email: string; role: 'admin' | 'member' | 'viewer' },
  ): Promise<{ invitation: Invitation; token: string }> {
    return unwrap(this.api.POST('/api/organizations/{orgId}/invitations', { params: { path: { orgId } }, body: input }));
  }
  async revokeInvitation(orgId: string, id: string): Promise<void> {
    await unwrap(this.api.DELETE('/api/organizations/{orgId}/invitations/{id}', { params: { path: { orgId, id } } }));
  }
  seats(orgId: string): Promise<{ usedSeats: number; totalSeats: number; pendingInvitations: number }> {
    return unwrap(this.api.GET('/api/organizations/{orgId}/seats', { params: { path: { orgId } } }));
  }

  // API keys (docs/contracts.md "API keys")
  listApiKeys(): Promise<{ apiKeys: ApiKey[] }> {
    return unwrap(this.api.GET('/api/api-keys'));
  }
  createApiKey(input: { name: string; scopes: string[] }): Promise<{ apiKey: ApiKey; key: string }> {
    return unwrap(this.api.POST('/api/api-keys', { body: input as never }));
  }
  async revokeApiKey(id: string): Promise<void> {
    await unwrap(this.api.DELETE('/api/api-keys/{id}', { params: path(id) }));
  }

  // Wallet and audit log
  // The contract leaves billing events and audit entries open (`{}` items); these are the fields the console reads.
  wallet(): Promise<Wallet> {
    return unwrap(this.api.GET('/api/billing/wallet')) as Promise<Wallet>;
  }
  auditLog(query: Page & { action?: string } = {}): Promise<{ entries: AuditEntry[]; total: number }> {
    return unwrap(this.api.GET('/api/audit-logs', { params: { query } })) as Promise<{ entries: AuditEntry[]; total: number }>;
  }
}
