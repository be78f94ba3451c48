/**
 * Identity resolution (docs/contracts.md "Contacts"): a conversation's first inbound message from an identity no
 * contact of the organization holds creates a contact (status `new`); a known identity finds its contact. The
 * first agent reply moves `new` to `engaged`. Runs inside the chat turn's transaction.
 */
import type { Repositories } from '../ports/repositories';
import type { Contact } from './contact';
import type { ContactDeps } from './contact-deps';
import { extractContactFields, type FieldWrite, writeContactFields } from './contact-fields';

/** Who wrote in, as the channel knows them. */
export interface ChannelIdentity {
  /** Identity channel: `web`, `widget`, `email`, `whatsapp_business`. */
  channel: string;
  /** Normalised: E.164 phone, lowercased email, or the visitor id. */
  identifier: string;
  /** A name the channel carries (WhatsApp profile name, email From name). */
  displayName?: string | null;
}

export async function resolveContact(
  deps: Pick<ContactDeps, 'ids' | 'identifiers'>,
  repos: Repositories,
  organizationId: string,
  identity: ChannelIdentity,
  at: string,
): Promise<Contact> {
  const known = await repos.contacts.findByIdentity(organizationId, identity.channel, identity.identifier);
  if (known) {
    return (await repos.contacts.update(organizationId, known.id, { lastSeenAt: at })) ?? known;
  }
  const contact: Contact = {
    id: deps.ids.uuid(),
    organizationId,
    displayName: null,
    displayNameSource: null,
    primaryPhone: null,
    primaryEmail: null,
    sourceChannel: identity.channel,
    status: 'new',
    attributes: {},
    firstSeenAt: at,
    lastSeenAt: at,
  };
  await repos.contacts.create(contact);
  await repos.contacts.addIdentity(organizationId, contact.id, { id: deps.ids.uuid(), ...identity, at });
  // The channel identity itself is the contact's email or phone, unless another contact already holds it.
  const writes = [];
  if (identity.channel === 'email') writes.push({ key: 'email', value: identity.identifier });
  if (identity.channel === 'whatsapp_business') writes.push({ key: 'phone', value: identity.identifier });
  if (identity.displayName?.trim()) writes.push({ key: 'name', value: identity.displayName });
  return writeContactFields(deps, repos, contact, writes, 'extraction', at);
}

export interface ContactTurn {
  organizationId: string;
  conversationId: string;
  /** The conversation's contact when it has one already. */
  contactId: string | null;
  identity: ChannelIdentity | null;
  userMessage: string;
  /** The agent replied in this turn. */
  replied: boolean;
  at: string;
  /** Fields the model's `update_contact` calls gave in this turn (source `tool`), applied after extraction. */
  toolWrites?: readonly FieldWrite[];
}

/**
 * After a chat turn is saved: resolve the contact when the conversation has none, link it, extract fields from
 * the visitor's message, apply the model's tool writes and move `new` to `engaged` on the first reply. Returns the contact id (or null).
 */
export async function recordContactTurn(
  deps: Pick<ContactDeps, 'ids' | 'identifiers'>,
  repos: Repositories,
  turn: ContactTurn,
): Promise<string | null> {
  let contact = turn.contactId ? await repos.contacts.find(turn.organizationId, turn.contactId) : null;
  if (!contact) {
    if (!turn.identity) return null;
    contact = await resolveContact(deps, repos, turn.organizationId, turn.identity, turn.at);
    await repos.contacts.linkConversation(turn.organizationId, turn.conversationId, contact.id);
  } else {
    contact = (await repos.contacts.update(turn.organizationId, contact.id, { lastSeenAt: turn.at })) ?? contact;
  }
  contact = await writeContactFields(deps, repos, contact, extractContactFields(turn.userMessage, deps.identifiers), 'extraction', turn.at);
  if (turn.toolWrites?.length) contact = await writeContactFields(deps, repos, contact, turn.toolWrites, 'tool', turn.at);
  if (turn.replied && contact.status === 'new') await repos.contacts.update(turn.organizationId, contact.id, { status: 'engaged' });
  return contact.id;
}

/** The `contact` template namespace: the conversation's contact (its attributes under their own names). */
export function contactTemplateValues(contact: Contact | null): Record<string, unknown> {
  if (!contact) return {};
  return {
    ...contact.attributes,
    id: contact.id,
    name: contact.displayName ?? '',
    email: contact.primaryEmail ?? '',
    phone: contact.primaryPhone ?? '',
    status: contact.status,
  };
}
