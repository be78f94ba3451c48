/**
 * CSV export of contacts (spec 4.11): the fixed columns then one per attribute key sorted, no row cap. The
 * attribute keys come first from one aggregate query (the header needs them before the first row); rows are
 * then pulled one by one from the repository's cursor. Serialisation (BOM, RFC 4180 quoting, formula
 * neutralisation) is the HTTP edge's job: this module only says which cells go in which order.
 */
import type { Actor, ApiKeyActor } from '../identity/actor';
import { requireOrgPermission } from '../identity/policy';
import { DomainError } from '../shared/errors';
import type { ContactExportRow } from './contact';
import type { ContactDeps } from './contact-deps';
import { contactFilter, type ContactQuery } from './contacts';

export const EXPORT_COLUMNS = [
  'id',
  'organizationId',
  'displayName',
  'displayNameSource',
  'primaryPhone',
  'primaryEmail',
  'sourceChannel',
  'status',
  'firstSeenAt',
  'lastSeenAt',
  'organizationName',
  'conversationCount',
  'agentCount',
  'channels',
  'identities',
] as const;

/** A table to serialise: its header and its rows as cell arrays in header order, pulled lazily. */
export interface ExportTable {
  columns: string[];
  rows: AsyncIterable<unknown[]>;
}

export function contactCells(row: ContactExportRow, keys: readonly string[]): unknown[] {
  const fixed = EXPORT_COLUMNS.map((c) => {
    if (c === 'channels') return row.channels.join(';');
    if (c === 'identities') return row.identities.join(';');
    return row[c];
  });
  return [...fixed, ...keys.map((k) => row.attributes[k])];
}

async function* cellsOf(rows: AsyncIterable<ContactExportRow>, keys: readonly string[]): AsyncGenerator<unknown[]> {
  for await (const row of rows) yield contactCells(row, keys);
}

/** The export of the organization's contacts the query selects; a failing key query fails before any byte goes out. */
export async function contactExport(deps: ContactDeps, organizationId: string, q: ContactQuery): Promise<ExportTable> {
  const filter = contactFilter(organizationId, q);
  const keys = await deps.store.repos.contacts.attributeKeys(filter);
  return { columns: [...EXPORT_COLUMNS, ...keys], rows: cellsOf(deps.store.repos.contacts.exportRows(filter), keys) };
}

/** GET /api/contacts/export: the caller's organization; `organizationId` is honoured only for platform admins. */
export async function exportOrganizationFor(deps: ContactDeps, actor: Actor, requested?: string): Promise<string> {
  if (requested && actor.platformRole === 'superadmin') {
    if (!(await deps.store.repos.organizations.findById(requested))) throw new DomainError('NOT_FOUND', 'Organization not found');
    return requested;
  }
  return requireOrgPermission(actor, 'contacts.read');
}

/** GET /v1/contacts/export: the key's organization (the `contacts:read` scope is checked at the edge). */
export const exportOrganizationForKey = (key: ApiKeyActor) => key.organizationId;
