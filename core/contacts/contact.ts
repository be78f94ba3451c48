/** Contacts (spec 2.10, 3.5; docs/contracts.md "Contacts"): people agents talked to, resolved from channel identities. */
export const CONTACT_STATUSES = ['new', 'engaged', 'qualified', 'closed'] as const;
export type ContactStatus = (typeof CONTACT_STATUSES)[number];

export const CONTACT_CHANNELS = ['whatsapp_business', 'web', 'widget', 'email'] as const;

export type FieldSource = 'tool' | 'extraction' | 'operator' | 'import';

/** The bare contact of detail and status update. */
export interface Contact {
  id: string;
  organizationId: string;
  displayName: string | null;
  displayNameSource: FieldSource | null;
  primaryPhone: string | null;
  primaryEmail: string | null;
  sourceChannel: string;
  status: ContactStatus;
  attributes: Record<string, unknown>;
  firstSeenAt: string;
  lastSeenAt: string;
}

/** A list item: the contact plus its channels and counts. */
export interface ContactListItem {
  id: string;
  displayName: string | null;
  primaryPhone: string | null;
  primaryEmail: string | null;
  status: ContactStatus;
  channels: string[];
  conversationCount: number;
  agentCount: number;
  lastSeenAt: string;
  attributes: Record<string, unknown>;
}

export interface FieldHistoryEntry {
  field_key: string;
  value: string | null;
  previous_value: string | null;
  source: FieldSource;
  source_ref: string | null;
  recorded_at: string;
  rejected_reason: string | null;
}

export interface ContactIdentity {
  channel: string;
  identifier: string;
  verified: boolean;
}

export interface ContactConversationItem {
  id: string;
  bot_id: string;
  bot_name: string;
  platform: string;
  title: string | null;
  created_at: string;
  updated_at: string;
}

export interface ContactFilter {
  organizationId: string;
  search?: string;
  channel?: string;
  botId?: string;
  status?: string;
}

/** One CSV row of the export (spec 4.11 columns before the attribute keys). */
export interface ContactExportRow extends Contact {
  organizationName: string;
  conversationCount: number;
  agentCount: number;
  channels: string[];
  identities: string[];
}

export type ContactPatch = Partial<
  Pick<Contact, 'displayName' | 'displayNameSource' | 'primaryPhone' | 'primaryEmail' | 'status' | 'attributes' | 'lastSeenAt'>
>;

export interface ContactRepository {
  create(contact: Contact): Promise<void>;
  find(organizationId: string, id: string): Promise<Contact | null>;
  /** The contact holding this identity in the organization. */
  findByIdentity(organizationId: string, channel: string, identifier: string): Promise<Contact | null>;
  /** Another contact whose primary email or phone is this value (duplicate identity check). */
  findByPrimary(organizationId: string, field: 'primaryEmail' | 'primaryPhone', value: string): Promise<Contact | null>;
  addIdentity(
    organizationId: string,
    contactId: string,
    identity: { id: string; channel: string; identifier: string; at: string },
  ): Promise<void>;
  update(organizationId: string, id: string, patch: ContactPatch): Promise<Contact | null>;
  delete(organizationId: string, id: string): Promise<boolean>;
  appendHistory(organizationId: string, contactId: string, entries: (FieldHistoryEntry & { id: string })[]): Promise<void>;
  history(organizationId: string, contactId: string): Promise<FieldHistoryEntry[]>;
  identities(organizationId: string, contactId: string): Promise<ContactIdentity[]>;
  /** Most recently active first, total ignoring paging. */
  list(filter: ContactFilter, page: { limit: number; offset: number }): Promise<{ items: ContactListItem[]; total: number }>;
  conversations(organizationId: string, contactId: string, limit: number): Promise<ContactConversationItem[]>;
  /** Sorted attribute keys of the contacts the filter selects (the export's extra columns). */
  attributeKeys(filter: ContactFilter): Promise<string[]>;
  /**
   * Export rows one by one from a database cursor (or bounded keyset pages where the store has no cursor to
   * spare), pulled only as fast as the consumer asks: memory stays flat whatever the row count.
   */
  exportRows(filter: ContactFilter): AsyncIterable<ContactExportRow>;
  /** Links a conversation to its contact (and channel). */
  linkConversation(organizationId: string, conversationId: string, contactId: string): Promise<void>;
}
