import type { AddressVerification, Channel, ChannelPatch, ChannelRepository } from '../../../core/channels/channel';
import { DomainError } from '../../../core/shared/errors';
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

/** The unique index of active email addresses (migration 0077). */
const EMAIL_ADDRESS_INDEX = 'channels_email_address_unique';

/** A write that would make a second active email channel for one address: the use case's ADDRESS_TAKEN. */
function addressTaken(e: unknown): never {
  const err = e as { code?: unknown; constraint?: unknown; message?: unknown };
  if (err?.code === '23505' && (err.constraint === EMAIL_ADDRESS_INDEX || String(err.message ?? '').includes(EMAIL_ADDRESS_INDEX)))
    throw new DomainError('ADDRESS_TAKEN', 'This inbound address is already served by another channel');
  throw e;
}

const toVerification = (r: Record<string, unknown>): AddressVerification => ({
  channelId: r.channel_id as string,
  address: r.address as string,
  codeHash: r.code_hash as string,
  attempts: Number(r.attempts),
  expiresAt: iso(r.expires_at),
  createdAt: iso(r.created_at),
});

/** How long the webhook may use a channel read from memory (changes made on another replica show after this). */
const INBOUND_CACHE_MS = 5000;
/** Channels kept in memory at most (the oldest read is dropped first). */
const INBOUND_CACHE_MAX = 1000;

/** Agent channels and the inbound message ledger (migration 0035). */
export class KnexChannelRepository implements ChannelRepository {
  /** Channels the inbound webhook read lately, by id. Any write through this repository empties it. */
  private readonly inbound = new Map<string, { channel: Channel; until: number }>();
  /** The public lane's reads by agent slug (`type:slug`), emptied with `inbound`. */
  private readonly bySlug = new Map<string, { channels: Channel[]; until: number }>();

  /**
   * @param afterTransaction runs work once the transaction open on this async path has ended (nothing outside
   *   one): a webhook reading between a write's statement and its commit would otherwise cache the old row again.
   */
  constructor(
    private readonly db: DbHandle,
    private readonly now: () => number = Date.now,
    private readonly afterTransaction: (work: () => void) => void = () => undefined,
  ) {}

  /** Empties the webhook's cache once the write ran, and again when its transaction has committed or rolled back. */
  private forget(): void {
    const clear = () => {
      this.inbound.clear();
      this.bySlug.clear();
    };
    clear();
    this.afterTransaction(clear);
  }

  async findActiveForPublicSlug(type: string, slug: string) {
    const key = `${type}:${slug}`;
    const hit = this.bySlug.get(key);
    if (hit && hit.until > this.now()) return hit.channels;
    this.bySlug.delete(key);
    const rows = await this.db()('channels as c')
      .join('agents as a', 'a.id', 'c.agent_id')
      .where({ 'a.slug': slug, 'c.type': type, 'c.is_active': true })
      .whereNull('a.deleted_at')
      .orderBy([{ column: 'c.created_at' }, { column: 'c.id' }])
      .select('c.*');
    const channels = rows.map(toChannel);
    // Slugs with no such channel are kept too (most agents): bounded like the inbound cache.
    if (this.bySlug.size >= INBOUND_CACHE_MAX) this.bySlug.delete(this.bySlug.keys().next().value as string);
    this.bySlug.set(key, { channels, until: this.now() + INBOUND_CACHE_MS });
    return channels;
  }

  async findForInbound(id: string) {
    const hit = this.inbound.get(id);
    if (hit && hit.until > this.now()) return hit.channel;
    this.inbound.delete(id);
    const channel = await this.findById(id);
    // Unknown ids are not kept: random ids must not fill the memory.
    if (channel) {
      if (this.inbound.size >= INBOUND_CACHE_MAX) this.inbound.delete(this.inbound.keys().next().value as string);
      this.inbound.set(id, { channel, until: this.now() + INBOUND_CACHE_MS });
    }
    return channel;
  }

  async create(c: Channel) {
    await this.db()('channels')
      .insert({
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
      })
      .catch(addressTaken);
    this.forget();
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
    const [r] = await this.db()('channels').where({ organization_id: organizationId, id }).update(row).returning('*').catch(addressTaken);
    this.forget();
    return r ? toChannel(r) : null;
  }

  async delete(organizationId: string, id: string) {
    if (!UUID.test(id)) return false;
    const deleted = await this.db()('channels').where({ organization_id: organizationId, id }).delete();
    this.forget();
    return deleted > 0;
  }

  async deactivateForAgent(organizationId: string, agentId: string, at: string) {
    const n = await this.db()('channels')
      .where({ organization_id: organizationId, agent_id: agentId, is_active: true })
      .update({ is_active: false, updated_at: at });
    this.forget();
    return n;
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

  async putVerification(v: AddressVerification) {
    await this.db()('channel_address_verifications')
      .insert({
        channel_id: v.channelId,
        address: v.address,
        code_hash: v.codeHash,
        attempts: v.attempts,
        expires_at: v.expiresAt,
        created_at: v.createdAt,
      })
      .onConflict('channel_id')
      .merge();
  }

  async findVerification(channelId: string) {
    if (!UUID.test(channelId)) return null;
    const r = await this.db()('channel_address_verifications').where({ channel_id: channelId }).first();
    return r ? toVerification(r) : null;
  }

  async countVerificationAttempt(channelId: string) {
    if (!UUID.test(channelId)) return 0;
    const [r] = await this.db()('channel_address_verifications')
      .where({ channel_id: channelId })
      .increment('attempts', 1)
      .returning('attempts');
    return r ? Number((r as { attempts: unknown }).attempts) : 0;
  }

  async deleteVerification(channelId: string) {
    if (!UUID.test(channelId)) return;
    await this.db()('channel_address_verifications').where({ channel_id: channelId }).delete();
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
