import type {
  ChannelDelivery,
  ChannelDeliveryAttempt,
  ChannelDeliveryPayload,
  ChannelDeliveryRepository,
  ChannelDeliveryStatus,
} from '../../../core/channels/channel-delivery';
import type { DbHandle } from '../db-handle';
import { iso, isoOrNull } from './rows';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const toDelivery = (r: Record<string, unknown>): ChannelDelivery => ({
  id: r.id as string,
  organizationId: r.organization_id as string,
  channelId: r.channel_id as string,
  agentId: r.agent_id as string,
  conversationId: r.conversation_id as string,
  inboundMessageId: (r.inbound_message_id as string | null) ?? null,
  messageId: (r.message_id as string | null) ?? null,
  externalId: (r.external_id as string | null) ?? null,
  payload: (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload) as ChannelDeliveryPayload,
  status: r.status as ChannelDeliveryStatus,
  attempts: Number(r.attempts),
  lastError: (r.last_error as string | null) ?? null,
  nextAttemptAt: isoOrNull(r.next_attempt_at),
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
  sentAt: isoOrNull(r.sent_at),
});

/** Channel replies to send and their attempts (migration 0075): the outbox of `channels.outbound`. */
export class KnexChannelDeliveryRepository implements ChannelDeliveryRepository {
  constructor(private readonly db: DbHandle) {}

  async create(d: ChannelDelivery) {
    const rows = await this.db()('channel_deliveries')
      .insert({
        id: d.id,
        organization_id: d.organizationId,
        channel_id: d.channelId,
        agent_id: d.agentId,
        conversation_id: d.conversationId,
        inbound_message_id: d.inboundMessageId,
        message_id: d.messageId,
        external_id: d.externalId,
        payload: JSON.stringify(d.payload),
        status: d.status,
        attempts: d.attempts,
        last_error: d.lastError,
        next_attempt_at: d.nextAttemptAt,
        created_at: d.createdAt,
        updated_at: d.updatedAt,
        sent_at: d.sentAt,
      })
      .onConflict(['channel_id', 'inbound_message_id'])
      .ignore()
      .returning('id');
    return rows.length > 0;
  }

  async find(organizationId: string, id: string) {
    if (!UUID.test(id)) return null;
    const r = await this.db()('channel_deliveries').where({ organization_id: organizationId, id }).first();
    return r ? toDelivery(r) : null;
  }

  async findForInbound(channelId: string, inboundMessageId: string) {
    const r = await this.db()('channel_deliveries').where({ channel_id: channelId, inbound_message_id: inboundMessageId }).first();
    return r ? toDelivery(r) : null;
  }

  async claimAttempt(organizationId: string, id: string, previousAttempts: number, at: string) {
    const n = await this.db()('channel_deliveries')
      .where({ organization_id: organizationId, id, status: 'pending', attempts: previousAttempts })
      .update({ attempts: previousAttempts + 1, next_attempt_at: null, updated_at: at });
    return n === 1;
  }

  async recordAttempt(organizationId: string, id: string, attempts: number, a: ChannelDeliveryAttempt) {
    const n = await this.db()('channel_deliveries')
      .where({ organization_id: organizationId, id, status: 'pending', attempts })
      .update({
        status: a.status,
        last_error: a.lastError ? a.lastError.slice(0, 1000) : null,
        next_attempt_at: a.nextAttemptAt,
        external_id: a.externalId,
        updated_at: a.updatedAt,
        sent_at: a.sentAt,
      });
    return n === 1;
  }

  async listForChannel(organizationId: string, channelId: string, page: { limit: number; offset: number }) {
    const rows = await this.db()('channel_deliveries')
      .where({ organization_id: organizationId, channel_id: channelId })
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(page.limit)
      .offset(page.offset);
    return rows.map(toDelivery);
  }

  async listStalled(before: string, limit: number) {
    const rows = await this.db()('channel_deliveries')
      .where('status', 'pending')
      .andWhereRaw('coalesce(next_attempt_at, updated_at) < ?', [before])
      .orderByRaw('coalesce(next_attempt_at, updated_at), id')
      .limit(limit);
    return rows.map(toDelivery);
  }
}
