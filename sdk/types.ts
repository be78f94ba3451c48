/**
 * Request and response shapes of the public API operations the console uses (spec sections 2 and 4,
 * docs/contracts.md). Only the fields a client relies on; the OpenAPI document at /api/openapi.json has them all.
 */

/** Every error answer of the platform: `{error, message}` plus optional `code` and `details`. */
export interface PlatformErrorBody {
  error: string;
  message: string;
  code?: string;
  details?: unknown;
}

export interface Organization {
  id: string;
  name: string;
  slug: string;
  role: string;
}

export interface User {
  id: string;
  email: string;
  displayName: string;
  platformRole: string;
  organizations: Organization[];
}

export interface Session {
  user: User;
  accessToken: string;
  refreshToken: string;
}

export interface RegisterInput {
  email: string;
  password: string;
  displayName: string;
  organizationName: string;
}

export interface KnowledgeBase {
  id: string;
  name: string;
  description: string;
  organizationId: string;
  visibility: string;
  createdAt: string;
  updatedAt: string;
}

export type ProcessingStatus = 'pending' | 'processing' | 'completed' | 'failed';

export interface KbDocument {
  id: string;
  knowledgeBaseId: string;
  title: string;
  mimeType: string;
  fileSizeBytes: number;
  processingStatus: ProcessingStatus;
  createdAt: string;
}

/** docs/contracts.md "Jobs": one event shape for the poll snapshot and the SSE stream. */
export interface JobEvent {
  jobId: string;
  kind: string;
  status: 'queued' | 'running' | 'completed' | 'failed';
  progress: number;
  step: string | null;
  stepLabel: string | null;
  detail: string | null;
  error: { code?: string; message?: string; retryable?: boolean } | null;
  result: Record<string, unknown> | null;
  emittedAt: string;
}

export type AgentStatus = 'draft' | 'pending_review' | 'approved' | 'rejected' | 'published';

export interface Agent {
  id: string;
  name: string;
  description: string;
  model: string;
  organizationId: string;
  systemPrompt?: string | null;
  isDraft: boolean;
  status: AgentStatus;
  streamingEnabled: boolean;
  fileUploadsEnabled: boolean;
  slug: string | null;
  knowledgeBaseIds?: string[];
  reviewFeedback?: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface AgentInput {
  name?: string;
  description?: string;
  model?: string;
  systemPrompt?: string;
  knowledgeBaseIds?: string[];
  isDraft?: boolean;
  streamingEnabled?: boolean;
  fileUploadsEnabled?: boolean;
}

export interface AgentVersion {
  version: number;
  changes: Record<string, unknown>;
  notes: string;
  createdAt: string;
  createdBy: string | null;
}

export interface Distribution {
  slug: string;
  url: string;
  distribution: { require_org_membership: boolean; allowed_group_ids: string[] | null };
}

export interface PromptSection {
  promptType: string;
  instanceRef?: string | null;
  mode: 'fixed' | 'generated';
  content?: string | null;
  prompt?: string | null;
}

export interface PromptVersionItem {
  id: string;
  versionMajor: number;
  versionMinor: number;
  label: string | null;
  createdAt: string;
  authorName: string | null;
  isLive: boolean;
  isNewest: boolean;
}

export interface PromptLive {
  id: string;
  versionMajor: number;
  versionMinor: number;
  publishedAt?: string;
  publishedByName?: string | null;
}

/** An operator inbox item (docs/contracts.md "Operator inbox"). */
export interface InboxConversation {
  id: string;
  botId: string;
  platform: string;
  contactId: string | null;
  title: string | null;
  messageCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface ChatMessage {
  id: string;
  role: 'user' | 'assistant' | 'system';
  content: string;
  createdAt: string;
  operator?: { displayName?: string };
}

export type OperatorEventType =
  'operator.joined' | 'operator.left' | 'operator.typing' | 'operator.message' | 'conversation.takeover' | 'conversation.released';

export interface SearchResult {
  content: string;
  score: number;
  knowledgeBaseId: string;
  metadata: { documentId: string; documentTitle: string; chunkIndex: number; embeddingType?: string };
  discoveryMethods: string[];
  relationshipPath?: unknown;
}

export type ContactStatus = 'new' | 'engaged' | 'qualified' | 'closed';

export interface Contact {
  id: string;
  displayName: string | null;
  primaryPhone: string | null;
  primaryEmail: string | null;
  status: ContactStatus;
  channels: string[];
  conversationCount: number;
  agentCount: number;
  lastSeenAt: string;
}

export interface ContactFilters {
  search?: string;
  channel?: 'whatsapp_business' | 'web' | 'widget' | 'email';
  botId?: string;
  status?: ContactStatus;
}

export interface AnalyticsRange {
  organizationId: string;
  startDate: string;
  endDate: string;
  botId?: string;
}

export interface DailyPoint {
  date: string | null;
  conversations: number;
  messages: number;
  tokens: number;
  cost: number;
  averageResponseTime: number;
}

export interface Metric {
  value: number;
  trend: 'up' | 'down' | 'stable';
  change: number;
}

export interface AnalyticsOverview {
  totalConversations: Metric;
  totalMessages: Metric;
  totalTokens: Metric;
  totalCost: Metric;
  averageResponseTime: Metric;
}

export interface Member {
  userId: string;
  email: string;
  displayName: string;
  role: string;
}

export interface Invitation {
  id: string;
  email: string;
  role: string;
  status: string;
  expiresAt: string;
}

export interface ApiKey {
  id: string;
  name: string;
  scopes: string[];
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
}

export interface Wallet {
  balance: number;
  currency: 'USD';
  events: { id?: string; kind?: string; costUsd?: number; amountUsd?: number; createdAt?: string; [k: string]: unknown }[];
}

export interface AuditEntry {
  id: string;
  action: string;
  actorId: string | null;
  resourceType: string;
  resourceId: string | null;
  createdAt: string;
  [k: string]: unknown;
}

export interface Page {
  limit?: number;
  offset?: number;
}
