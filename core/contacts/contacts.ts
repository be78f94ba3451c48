/** The contact endpoints of spec 4.11: list, detail, conversations, status, delete (members with `contacts.read`). */
import type { Actor } from '../identity/actor';
import { requireOrgPermission } from '../identity/policy';
import { DomainError } from '../shared/errors';
import { pageRequest } from '../shared/pagination';
import { CONTACT_STATUSES, type ContactFilter, type ContactStatus } from './contact';
import type { ContactDeps } from './contact-deps';

export const CONTACT_PAGE = { limit: 20, max: 50 };
export const CONTACT_CONVERSATIONS_MAX = 50;

export interface ContactQuery {
  search?: string;
  channel?: string;
  botId?: string;
  status?: string;
  limit?: number;
  offset?: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const contactNotFound = () => new DomainError('NOT_FOUND', 'Contact not found');

export function contactFilter(organizationId: string, q: ContactQuery): ContactFilter {
  const search = q.search?.trim();
  return {
    organizationId,
    ...(search ? { search } : {}),
    ...(q.channel ? { channel: q.channel } : {}),
    // A botId that is no UUID matches nothing rather than failing the query.
    ...(q.botId ? { botId: UUID.test(q.botId) ? q.botId : '00000000-0000-0000-0000-000000000000' } : {}),
    ...(q.status ? { status: q.status } : {}),
  };
}

const orgOf = (actor: Actor) => requireOrgPermission(actor, 'contacts.read');

async function loadContact(deps: ContactDeps, organizationId: string, id: string) {
  const contact = UUID.test(id) ? await deps.store.repos.contacts.find(organizationId, id) : null;
  if (!contact) throw contactNotFound();
  return contact;
}

export async function listContacts(deps: ContactDeps, actor: Actor, q: ContactQuery) {
  const organizationId = orgOf(actor);
  const { items, total } = await deps.store.repos.contacts.list(contactFilter(organizationId, q), pageRequest(q, CONTACT_PAGE));
  return { contacts: items, total };
}

export async function getContact(deps: ContactDeps, actor: Actor, id: string) {
  const organizationId = orgOf(actor);
  const contact = await loadContact(deps, organizationId, id);
  const [fieldHistory, identities] = await Promise.all([
    deps.store.repos.contacts.history(organizationId, id),
    deps.store.repos.contacts.identities(organizationId, id),
  ]);
  return { contact, fieldHistory, identities };
}

export async function contactConversations(deps: ContactDeps, actor: Actor, id: string) {
  const organizationId = orgOf(actor);
  await loadContact(deps, organizationId, id);
  return { conversations: await deps.store.repos.contacts.conversations(organizationId, id, CONTACT_CONVERSATIONS_MAX) };
}

/** PATCH status: any of the four values, whatever the previous one; appends an `operator` history row. */
export async function setContactStatus(deps: ContactDeps, actor: Actor, id: string, body: { status?: unknown }) {
  const organizationId = orgOf(actor);
  const status = body?.status;
  if (typeof status !== 'string' || !(CONTACT_STATUSES as readonly string[]).includes(status)) {
    throw new DomainError('VALIDATION', `status is required and must be one of ${CONTACT_STATUSES.join(', ')}`, [
      { field: 'status', message: 'must be one of the four contact statuses' },
    ]);
  }
  return deps.store.transaction(async (repos) => {
    const contact = await repos.contacts.find(organizationId, id);
    if (!contact) throw contactNotFound();
    const at = deps.clock.now().toISOString();
    await repos.contacts.appendHistory(organizationId, id, [
      {
        id: deps.ids.uuid(),
        field_key: 'status',
        value: status,
        previous_value: contact.status,
        source: 'operator',
        source_ref: null,
        recorded_at: at,
        rejected_reason: null,
      },
    ]);
    return { contact: (await repos.contacts.update(organizationId, id, { status: status as ContactStatus }))! };
  });
}

/** DELETE /api/contacts/:id (beyond 4.11): the contact, its identities and history go; its conversations stay, unlinked. */
export async function deleteContact(deps: ContactDeps, actor: Actor, id: string) {
  const organizationId = orgOf(actor);
  if (!UUID.test(id) || !(await deps.store.repos.contacts.delete(organizationId, id))) throw contactNotFound();
}
