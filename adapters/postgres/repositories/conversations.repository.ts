import type { Knex } from 'knex';

import type {
  Conversation,
  ConversationFilter,
  ConversationPatch,
  ConversationRepository,
  ConversationSummary,
  StoredMessage,
} from '../../../core/conversations/conversation';
import type { DbHandle } from '../db-handle';
import { iso, isoOrNull } from './rows';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const json = (v: unknown) => JSON.stringify(v ?? {});

const toConversation = (r: Record<string, unknown>): Conversation => ({
  id: r.id as string,
  organizationId: r.organization_id as string,
  agentId: r.agent_id as string,
  userId: (r.user_id as string | null) ?? null,
  anonymousId: (r.anonymous_id as string | null) ?? null,
  platform: r.platform as string,
  title: (r.title as string | null) ?? null,
  contactId: (r.contact_id as string | null) ?? null,
  channelId: (r.channel_id as string | null) ?? null,
  variables: (r.variables as Record<string, unknown>) ?? {},
  sensitiveVariables: (r.sensitive_variables as Record<string, unknown>) ?? {},
  signedVariableNames: Array.isArray(r.signed_variable_names) ? (r.signed_variable_names as string[]) : [],
  takeover: (r.takeover as Conversation['takeover']) ?? null,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
  deletedAt: isoOrNull(r.deleted_at),
});

const toMessage = (r: Record<string, unknown>): StoredMessage => ({
  id: r.id as string,
  conversationId: r.conversation_id as string,
  organizationId: r.organization_id as string,
  role: r.role as StoredMessage['role'],
  content: r.content as string,
  sources: (r.sources as StoredMessage['sources']) ?? [],
  promptTokens: Number(r.prompt_tokens),
  completionTokens: Number(r.completion_tokens),
  costUsd: Number(r.cost_usd),
  model: (r.model as string | null) ?? null,
  responseMs: r.response_ms == null ? null : Number(r.response_ms),
  metadata: (r.metadata as Record<string, unknown>) ?? {},
  createdAt: iso(r.created_at),
});

/** Conversations and messages (tables of migrations 0004 and 0006; takeover: 0066). */
export class KnexConversationRepository implements ConversationRepository {
  constructor(private readonly db: DbHandle) {}

  async create(c: Conversation) {
    await this.db()('conversations').insert({
      id: c.id,
      organization_id: c.organizationId,
      agent_id: c.agentId,
      user_id: c.userId,
      anonymous_id: c.anonymousId,
      platform: c.platform,
      title: c.title,
      contact_id: c.contactId ?? null,
      channel_id: c.channelId ?? null,
      variables: json(c.variables),
      sensitive_variables: json(c.sensitiveVariables),
      signed_variable_names: JSON.stringify(c.signedVariableNames ?? []),
      created_at: c.createdAt,
      updated_at: c.updatedAt,
    });
  }

  async findById(organizationId: string, id: string) {
    if (!UUID.test(id)) return null;
    const r = await this.db()('conversations').where({ organization_id: organizationId, id }).whereNull('deleted_at').first();
    return r ? toConversation(r) : null;
  }

  private filtered(f: ConversationFilter): Knex.QueryBuilder {
    const q = this.db()('conversations as c').where('c.organization_id', f.organizationId).whereNull('c.deleted_at');
    if (f.agentId !== undefined) q.where('c.agent_id', f.agentId);
    if (f.userId !== undefined) q.where('c.user_id', f.userId);
    if (f.anonymousId !== undefined) q.where('c.anonymous_id', f.anonymousId);
    if (f.platform !== undefined) q.where('c.platform', f.platform);
    if (f.contactId !== undefined) q.where('c.contact_id', f.contactId);
    if (f.updatedSince !== undefined) q.where('c.updated_at', '>=', f.updatedSince);
    return q;
  }

  async list(f: ConversationFilter, page: { limit: number; offset: number }) {
    const ids = [f.agentId, f.userId, f.anonymousId, f.contactId].filter((v) => v !== undefined) as string[];
    if (ids.some((v) => !UUID.test(v))) return { items: [], total: 0 };
    const total = await this.filtered(f).count({ n: '*' }).first();
    const rows = await this.filtered(f)
      .select('c.*', this.db().raw('(select count(*) from messages m where m.conversation_id = c.id)::int as message_count'))
      .orderBy([
        { column: 'c.updated_at', order: 'desc' },
        { column: 'c.id', order: 'asc' },
      ])
      .limit(page.limit)
      .offset(page.offset);
    const items: ConversationSummary[] = rows.map((r: Record<string, unknown>) => ({
      ...toConversation(r),
      messageCount: Number(r.message_count),
    }));
    return { items, total: Number(total?.n ?? 0) };
  }

  async update(organizationId: string, id: string, patch: ConversationPatch) {
    if (!UUID.test(id)) return null;
    const row: Record<string, unknown> = {};
    if (patch.title !== undefined) row.title = patch.title;
    if (patch.variables !== undefined) row.variables = json(patch.variables);
    if (patch.sensitiveVariables !== undefined) row.sensitive_variables = json(patch.sensitiveVariables);
    if (patch.updatedAt !== undefined) row.updated_at = patch.updatedAt;
    if (patch.takeover !== undefined) row.takeover = patch.takeover ? JSON.stringify(patch.takeover) : null;
    if (Object.keys(row).length === 0) return this.findById(organizationId, id);
    const [r] = await this.db()('conversations')
      .where({ organization_id: organizationId, id })
      .whereNull('deleted_at')
      .update(row)
      .returning('*');
    return r ? toConversation(r) : null;
  }

  async softDelete(organizationId: string, id: string, at: string) {
    if (!UUID.test(id)) return false;
    const n = await this.db()('conversations')
      .where({ organization_id: organizationId, id })
      .whereNull('deleted_at')
      .update({ deleted_at: at });
    return n > 0;
  }

  async countMessages(organizationId: string, conversationId: string) {
    const r = await this.db()('messages')
      .where({ organization_id: organizationId, conversation_id: conversationId })
      .count({ n: '*' })
      .first();
    return Number(r?.n ?? 0);
  }

  async addMessages(organizationId: string, conversationId: string, messages: StoredMessage[], touchAt: string | null) {
    if (messages.length) {
      await this.db()('messages').insert(
        messages.map((m) => ({
          id: m.id,
          conversation_id: conversationId,
          organization_id: organizationId,
          role: m.role,
          content: m.content,
          sources: JSON.stringify(m.sources ?? []),
          prompt_tokens: m.promptTokens,
          completion_tokens: m.completionTokens,
          cost_usd: m.costUsd,
          model: m.model,
          response_ms: m.responseMs,
          metadata: json(m.metadata),
          created_at: m.createdAt,
        })),
      );
    }
    if (touchAt)
      await this.db()('conversations').where({ organization_id: organizationId, id: conversationId }).update({ updated_at: touchAt });
  }

  async messages(organizationId: string, conversationId: string, page?: { limit: number; offset: number }) {
    const q = this.db()('messages')
      .where({ organization_id: organizationId, conversation_id: conversationId })
      .orderBy([{ column: 'created_at' }, { column: 'id' }]);
    if (page) q.limit(page.limit).offset(page.offset);
    return (await q).map(toMessage);
  }

  async recentMessages(organizationId: string, conversationId: string, count: number) {
    if (count <= 0) return [];
    const rows = await this.db()('messages')
      .where({ organization_id: organizationId, conversation_id: conversationId })
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(count);
    return rows.map(toMessage).reverse();
  }
}
