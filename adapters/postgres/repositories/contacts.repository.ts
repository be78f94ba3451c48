import type { Knex } from 'knex';

import type {
  Contact,
  ContactExportRow,
  ContactFilter,
  ContactIdentity,
  ContactListItem,
  ContactPatch,
  ContactRepository,
  FieldHistoryEntry,
} from '../../../core/contacts/contact';
import type { DbHandle } from '../db-handle';
import { iso } from './rows';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Rows per keyset page of the embedded store's export: amortises the round trip, keeps memory flat. */
const EXPORT_PAGE = 1000;
/** Rows the Postgres cursor fetches per round trip. */
const CURSOR_BATCH = 500;

const toContact = (r: Record<string, unknown>): Contact => ({
  id: r.id as string,
  organizationId: r.organization_id as string,
  displayName: (r.display_name as string | null) ?? null,
  displayNameSource: (r.display_name_source as Contact['displayNameSource']) ?? null,
  primaryPhone: (r.primary_phone as string | null) ?? null,
  primaryEmail: (r.primary_email as string | null) ?? null,
  sourceChannel: r.source_channel as string,
  status: r.status as Contact['status'],
  attributes: (r.attributes as Record<string, unknown>) ?? {},
  firstSeenAt: iso(r.first_seen_at),
  lastSeenAt: iso(r.last_seen_at),
});

const COLUMNS: Record<keyof ContactPatch, string> = {
  displayName: 'display_name',
  displayNameSource: 'display_name_source',
  primaryPhone: 'primary_phone',
  primaryEmail: 'primary_email',
  status: 'status',
  attributes: 'attributes',
  lastSeenAt: 'last_seen_at',
};

/** Joins the fields of `contact_search.haystack` (migration 0069). */
const FIELD_SEPARATOR = '\u001f';

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Contacts, identities and field history (migration 0035). */
export class KnexContactRepository implements ContactRepository {
  constructor(
    private readonly db: DbHandle,
    private readonly options: { cursors: boolean } = { cursors: false },
  ) {}

  async create(c: Contact) {
    await this.db()('contacts').insert({
      id: c.id,
      organization_id: c.organizationId,
      display_name: c.displayName,
      display_name_source: c.displayNameSource,
      primary_phone: c.primaryPhone,
      primary_email: c.primaryEmail,
      source_channel: c.sourceChannel,
      status: c.status,
      attributes: JSON.stringify(c.attributes ?? {}),
      first_seen_at: c.firstSeenAt,
      last_seen_at: c.lastSeenAt,
    });
  }

  async find(organizationId: string, id: string) {
    if (!UUID.test(id)) return null;
    const r = await this.db()('contacts').where({ organization_id: organizationId, id }).first();
    return r ? toContact(r) : null;
  }

  async findByIdentity(organizationId: string, channel: string, identifier: string) {
    const r = await this.db()('contact_identities as i')
      .join('contacts as c', 'c.id', 'i.contact_id')
      .where({ 'i.organization_id': organizationId, 'i.channel': channel, 'i.identifier': identifier })
      .first('c.*');
    return r ? toContact(r) : null;
  }

  async findByPrimary(organizationId: string, field: 'primaryEmail' | 'primaryPhone', value: string) {
    const r = await this.db()('contacts')
      .where({ organization_id: organizationId, [COLUMNS[field]]: value })
      .first();
    return r ? toContact(r) : null;
  }

  async addIdentity(organizationId: string, contactId: string, i: { id: string; channel: string; identifier: string; at: string }) {
    await this.db()('contact_identities')
      .insert({
        id: i.id,
        organization_id: organizationId,
        contact_id: contactId,
        channel: i.channel,
        identifier: i.identifier,
        created_at: i.at,
      })
      .onConflict(['organization_id', 'channel', 'identifier'])
      .ignore();
  }

  async update(organizationId: string, id: string, patch: ContactPatch) {
    const row: Record<string, unknown> = {};
    for (const [key, column] of Object.entries(COLUMNS) as [keyof ContactPatch, string][]) {
      if (patch[key] !== undefined) row[column] = key === 'attributes' ? JSON.stringify(patch[key]) : patch[key];
    }
    if (Object.keys(row).length === 0) return this.find(organizationId, id);
    const [r] = await this.db()('contacts').where({ organization_id: organizationId, id }).update(row).returning('*');
    return r ? toContact(r) : null;
  }

  async delete(organizationId: string, id: string) {
    return (await this.db()('contacts').where({ organization_id: organizationId, id }).delete()) > 0;
  }

  async appendHistory(organizationId: string, contactId: string, entries: (FieldHistoryEntry & { id: string })[]) {
    if (!entries.length) return;
    await this.db()('contact_field_history').insert(
      entries.map((e) => ({
        id: e.id,
        organization_id: organizationId,
        contact_id: contactId,
        field_key: e.field_key,
        value: e.value,
        previous_value: e.previous_value,
        source: e.source,
        source_ref: e.source_ref,
        rejected_reason: e.rejected_reason,
        recorded_at: e.recorded_at,
      })),
    );
  }

  async history(organizationId: string, contactId: string): Promise<FieldHistoryEntry[]> {
    const rows = await this.db()('contact_field_history')
      .where({ organization_id: organizationId, contact_id: contactId })
      .orderBy([
        { column: 'recorded_at', order: 'desc' },
        { column: 'seq', order: 'desc' },
      ]);
    return rows.map((r) => ({
      field_key: r.field_key,
      value: r.value ?? null,
      previous_value: r.previous_value ?? null,
      source: r.source,
      source_ref: r.source_ref ?? null,
      recorded_at: iso(r.recorded_at),
      rejected_reason: r.rejected_reason ?? null,
    }));
  }

  async identities(organizationId: string, contactId: string): Promise<ContactIdentity[]> {
    const rows = await this.db()('contact_identities')
      .where({ organization_id: organizationId, contact_id: contactId })
      .orderBy([{ column: 'created_at' }, { column: 'id' }]);
    return rows.map((r) => ({ channel: r.channel, identifier: r.identifier, verified: false }));
  }

  /** The `like` pattern of a search term, or null when it cannot match (see `contact_search_text`). */
  private static searchPattern(search: string): string | null {
    // The unit separator joins the fields of the haystack: a term holding it would match across two fields.
    if (search.includes(FIELD_SEPARATOR)) return null;
    return `%${likeEscape(search.toLowerCase())}%`;
  }

  /** Search, channel and agent conditions on the contact id `idColumn` (shared by the count and the rows). */
  private searchConditions(q: Knex.QueryBuilder, f: ContactFilter, idColumn: string): Knex.QueryBuilder {
    const raw = this.db().raw.bind(this.db());
    if (f.search) {
      const pattern = KnexContactRepository.searchPattern(f.search);
      if (pattern === null) q.whereRaw('false');
      else if (idColumn === 's.contact_id') q.whereRaw('s.haystack like ?', [pattern]);
      else
        q.whereExists((w) =>
          w.select(raw('1')).from('contact_search as s').whereRaw(`s.contact_id = ${idColumn}`).andWhereRaw('s.haystack like ?', [pattern]),
        );
    }
    if (f.channel)
      q.whereExists((w) =>
        w.select(raw('1')).from('contact_identities as i').whereRaw(`i.contact_id = ${idColumn}`).andWhere('i.channel', f.channel),
      );
    if (f.botId)
      q.whereExists((w) =>
        w
          .select(raw('1'))
          .from('conversations as v')
          .whereRaw(`v.contact_id = ${idColumn}`)
          .andWhere('v.agent_id', f.botId)
          .whereNull('v.deleted_at'),
      );
    return q;
  }

  private filtered(f: ContactFilter): Knex.QueryBuilder {
    const q = this.db()('contacts as c').where('c.organization_id', f.organizationId);
    if (f.status) q.where('c.status', f.status);
    return this.searchConditions(q, f, 'c.id');
  }

  /**
   * The exact count of a filter, on the narrow search table (migration 0069): a common term's matches are
   * rechecked on short rows, not on the wide contacts rows.
   */
  private counted(f: ContactFilter): Knex.QueryBuilder {
    const q = this.db()('contact_search as s').where('s.organization_id', f.organizationId);
    if (f.status) q.where('s.status', f.status);
    return this.searchConditions(q, f, 's.contact_id').count({ total: '*' });
  }

  /** Per-contact aggregates: channels, conversation and agent counts (by organization first: its index). */
  private withAggregates(q: Knex.QueryBuilder): Knex.QueryBuilder {
    const raw = this.db().raw.bind(this.db());
    return q.select(
      'c.*',
      raw(
        `coalesce((select array_agg(distinct i.channel order by i.channel) from contact_identities i where i.contact_id = c.id), '{}') as channels`,
      ),
      raw(
        '(select count(*) from conversations v where v.organization_id = c.organization_id and v.contact_id = c.id and v.deleted_at is null)::int as conversation_count',
      ),
      raw(
        '(select count(distinct v.agent_id) from conversations v where v.organization_id = c.organization_id and v.contact_id = c.id and v.deleted_at is null)::int as agent_count',
      ),
    );
  }

  async list(f: ContactFilter, page: { limit: number; offset: number }) {
    const rowsQuery = this.withAggregates(this.filtered(f))
      .orderBy([
        { column: 'c.last_seen_at', order: 'desc' },
        { column: 'c.id', order: 'asc' },
      ])
      .limit(page.limit)
      .offset(page.offset);
    // Count and page in one statement (one round trip; the total survives an offset past the end).
    const pageSql = rowsQuery.toSQL();
    const joined: Record<string, unknown>[] = await this.db()
      .select('t.total', 'p.*')
      .from(this.counted(f).as('t'))
      .joinRaw(`left join lateral (${pageSql.sql}) as p on true`, [...pageSql.bindings]);
    const total = Number(joined[0]?.total ?? 0);
    const rows = joined.filter((r) => r.id != null);
    const items: ContactListItem[] = rows.map((r: Record<string, unknown>) => {
      const c = toContact(r);
      return {
        id: c.id,
        displayName: c.displayName,
        primaryPhone: c.primaryPhone,
        primaryEmail: c.primaryEmail,
        status: c.status,
        channels: (r.channels as string[]) ?? [],
        conversationCount: Number(r.conversation_count),
        agentCount: Number(r.agent_count),
        lastSeenAt: c.lastSeenAt,
        attributes: c.attributes,
      };
    });
    return { items, total };
  }

  async conversations(organizationId: string, contactId: string, limit: number) {
    const rows = await this.db()('conversations as v')
      .join('agents as a', 'a.id', 'v.agent_id')
      .where({ 'v.organization_id': organizationId, 'v.contact_id': contactId })
      .whereNull('v.deleted_at')
      .orderBy([
        { column: 'v.updated_at', order: 'desc' },
        { column: 'v.id', order: 'asc' },
      ])
      .limit(limit)
      .select('v.id', 'v.agent_id', 'a.name as agent_name', 'v.platform', 'v.title', 'v.created_at', 'v.updated_at');
    return rows.map((r) => ({
      id: r.id,
      bot_id: r.agent_id,
      bot_name: r.agent_name,
      platform: r.platform,
      title: r.title ?? null,
      created_at: iso(r.created_at),
      updated_at: iso(r.updated_at),
    }));
  }

  async attributeKeys(f: ContactFilter) {
    const rows = await this.db()
      .select(this.db().raw('distinct jsonb_object_keys(c.attributes) as key'))
      .from(this.filtered(f).select('c.attributes').as('c'));
    return rows.map((r: { key: string }) => r.key).sort();
  }

  private exportQuery(f: ContactFilter): Knex.QueryBuilder {
    return this.withAggregates(this.filtered(f)).select(
      this.db().raw(
        `coalesce((select array_agg(i.channel || ':' || i.identifier order by i.created_at, i.id) from contact_identities i where i.contact_id = c.id), '{}') as identity_list`,
      ),
    );
  }

  /**
   * On Postgres one query through a server-side cursor (pg-query-stream: CURSOR_BATCH rows per fetch, the next
   * fetch only when the consumer has taken the last); stopping early destroys the stream, which closes the
   * cursor and gives the connection back. On the embedded store (one session) keyset pages in id order, each one
   * indexed range read, so no statement stays open between pages.
   */
  async *exportRows(f: ContactFilter): AsyncIterable<ContactExportRow> {
    const org = await this.db()('organizations').where({ id: f.organizationId }).first('name');
    const organizationName = (org?.name as string) ?? '';
    const toRow = (r: Record<string, unknown>): ContactExportRow => ({
      ...toContact(r),
      organizationName,
      conversationCount: Number(r.conversation_count),
      agentCount: Number(r.agent_count),
      channels: (r.channels as string[]) ?? [],
      identities: (r.identity_list as string[]) ?? [],
    });
    if (this.options.cursors) {
      const stream = this.exportQuery(f).orderBy('c.id').stream({ batchSize: CURSOR_BATCH, highWaterMark: CURSOR_BATCH });
      try {
        for await (const r of stream) yield toRow(r as Record<string, unknown>);
      } finally {
        stream.destroy();
      }
      return;
    }
    let after: string | null = null;
    for (;;) {
      const q = this.exportQuery(f);
      if (after) q.where('c.id', '>', after);
      const rows: Record<string, unknown>[] = await q.orderBy('c.id').limit(EXPORT_PAGE);
      for (const r of rows) yield toRow(r);
      if (rows.length < EXPORT_PAGE) return;
      after = rows[rows.length - 1].id as string;
    }
  }

  async linkConversation(organizationId: string, conversationId: string, contactId: string) {
    await this.db()('conversations').where({ organization_id: organizationId, id: conversationId }).update({ contact_id: contactId });
  }
}
