/**
 * CSV export of contacts (spec 4.11): a UTF-8 BOM, the fixed columns then one per attribute key sorted, RFC 4180
 * quoting, cells starting with `= + - @` (or a tab or carriage return) neutralised against formula injection
 * with a leading apostrophe, no row cap. Rows are produced batch by batch from the repository's cursor, so
 * memory stays flat whatever the row count.
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

const BOM = '\uFEFF';

/** One RFC 4180 cell, neutralised when a spreadsheet would read it as a formula. */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLine(cells: readonly unknown[]): string {
  return cells.map(csvCell).join(',') + '\r\n';
}

function rowCells(row: ContactExportRow, keys: readonly string[]): unknown[] {
  const fixed = EXPORT_COLUMNS.map((c) => {
    if (c === 'channels') return row.channels.join(';');
    if (c === 'identities') return row.identities.join(';');
    return row[c];
  });
  return [...fixed, ...keys.map((k) => row.attributes[k])];
}

/** The CSV text in chunks (header first), read batch by batch from the store. */
export async function* contactCsv(deps: ContactDeps, organizationId: string, q: ContactQuery): AsyncGenerator<string> {
  const filter = contactFilter(organizationId, q);
  const keys = await deps.store.repos.contacts.attributeKeys(filter);
  yield BOM + csvLine([...EXPORT_COLUMNS, ...keys]);
  for await (const batch of deps.store.repos.contacts.exportRows(filter)) {
    let chunk = '';
    for (const row of batch) chunk += csvLine(rowCells(row, keys));
    if (chunk) yield chunk;
  }
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
