import type { Channel, ChannelPatch, ChannelRepository } from '../../../core/channels/channel';
import type { DbHandle } from '../db-handle';
import { iso } from './rows';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const toChannel = (r: Record<string, unknown>): Channel => ({
  id: r.id as string,
  organizationId: r.organization_id as string,
  agentId: r.agent_id as string,
  type: r.type as string,
  label: r.label as string,
  isActive: r.is_active === true,
  config: (r.config as Record<string, unknown>) ?? {},
  secrets: (r.secrets as Record<string, string>) ?? {},
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

/** Agent channels and the inbound message ledger (migration 0035). */
export class KnexChannelRepository implements ChannelRepository {
  constructor(private readonly db: DbHandle) {}

  async create(c: Channel) {
    await this.db()('channels').insert({
      id: c.id,
      organization_id: c.organizationId,
      agent_id: c.agentId,
      type: c.type,
      label: c.label,
      is_active: c.isActive,
      config: JSON.stringify(c.config),
      secrets: JSON.stringify(c.secrets),
      created_at: c.createdAt,
      updated_at: c.updatedAt,
    });
  }

  async findById(id: string) {
    if (!UUID.test(id)) return null;
    const r = await this.db()('channels').where({ id }).first();
    return r ? toChannel(r) : null;
  }

  async findActiveByAddress(type: string, address: string) {
    const r = await this.db()('channels')
      .where({ type, is_active: true })
      .whereRaw("lower(config->>'address') = ?", [address.toLowerCase()])
      .orderBy([{ column: 'created_at' }, { column: 'id' }])
      .first();
    return r ? toChannel(r) : null;
  }

  async listForAgent(organizationId: string, agentId: string) {
    const rows = await this.db()('channels')
      .where({ organization_id: organizationId, agent_id: agentId })
      .orderBy([{ column: 'created_at' }, { column: 'id' }]);
    return rows.map(toChannel);
  }

  async update(organizationId: string, id: string, patch: ChannelPatch) {
    if (!UUID.test(id)) return null;
    const row: Record<string, unknown> = {};
    if (patch.label !== undefined) row.label = patch.label;
    if (patch.isActive !== undefined) row.is_active = patch.isActive;
    if (patch.config !== undefined) row.config = JSON.stringify(patch.config);
    if (patch.secrets !== undefined) row.secrets = JSON.stringify(patch.secrets);
    if (patch.updatedAt !== undefined) row.updated_at = patch.updatedAt;
    const [r] = await this.db()('channels').where({ organization_id: organizationId, id }).update(row).returning('*');
    return r ? toChannel(r) : null;
  }

  async delete(organizationId: string, id: string) {
    if (!UUID.test(id)) return false;
    return (await this.db()('channels').where({ organization_id: organizationId, id }).delete()) > 0;
  }

  async deactivateForAgent(organizationId: string, agentId: string, at: string) {
    return this.db()('channels')
      .where({ organization_id: organizationId, agent_id: agentId, is_active: true })
      .update({ is_active: false, updated_at: at });
  }

  async markInbound(channelId: string, externalId: string, at: string) {
    const rows = await this.db()('channel_inbound_messages')
      .insert({ channel_id: channelId, external_id: externalId, received_at: at })
      .onConflict(['channel_id', 'external_id'])
      .ignore()
      .returning('external_id');
    return rows.length > 0;
  }

  async setInboundConversation(channelId: string, externalId: string, conversationId: string) {
    await this.db()('channel_inbound_messages')
      .insert({ channel_id: channelId, external_id: externalId, conversation_id: conversationId, received_at: new Date().toISOString() })
      .onConflict(['channel_id', 'external_id'])
      .merge({ conversation_id: conversationId });
  }

  async conversationOfMessages(channelId: string, externalIds: readonly string[]) {
    if (!externalIds.length) return null;
    const r = await this.db()('channel_inbound_messages as m')
      .join('conversations as v', 'v.id', 'm.conversation_id')
      .where('m.channel_id', channelId)
      .whereIn('m.external_id', [...externalIds])
      .whereNull('v.deleted_at')
      .orderBy('m.received_at', 'desc')
      .first('m.conversation_id');
    return (r?.conversation_id as string) ?? null;
  }

  async latestConversation(channelId: string, contactId: string) {
    const r = await this.db()('conversations')
      .where({ channel_id: channelId, contact_id: contactId })
      .whereNull('deleted_at')
      .orderBy('updated_at', 'desc')
      .first('id');
    return (r?.id as string) ?? null;
  }
}
