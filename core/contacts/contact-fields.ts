/**
 * Writing contact fields with full history (spec 2.10): every write, applied or refused, appends a history row.
 * An email or phone that already belongs to another contact is refused (`rejected_duplicate_identity`): nothing
 * is overwritten or merged. Extraction never overwrites what a tool or an operator wrote.
 */
import type { Repositories } from '../ports/repositories';
import type { Contact, ContactPatch, FieldHistoryEntry, FieldSource } from './contact';
import type { ContactDeps } from './contact-deps';

export interface FieldWrite {
  /** `name`, `email`, `phone`, or any attribute key (`company`...). */
  key: string;
  value: string;
}

const STRONGER: Record<FieldSource, number> = { extraction: 0, import: 1, tool: 2, operator: 2 };
const MAX_VALUE = 500;

type Row = FieldHistoryEntry & { id: string };

/** Applies writes to a contact in the caller's transaction; returns the updated contact. */
export async function writeContactFields(
  deps: Pick<ContactDeps, 'ids' | 'identifiers'>,
  repos: Repositories,
  contact: Contact,
  writes: readonly FieldWrite[],
  source: FieldSource,
  at: string,
): Promise<Contact> {
  const rows: Row[] = [];
  const patch: ContactPatch = {};
  let current = { ...contact, attributes: { ...contact.attributes } };
  const row = (key: string, value: string | null, previous: string | null, rejected: string | null = null) =>
    rows.push({
      id: deps.ids.uuid(),
      field_key: key,
      value,
      previous_value: previous,
      source,
      source_ref: null,
      recorded_at: at,
      rejected_reason: rejected,
    });
  for (const write of writes) {
    const raw = String(write.value ?? '')
      .trim()
      .slice(0, MAX_VALUE);
    if (!raw) continue;
    if (write.key === 'email' || write.key === 'phone') {
      const field = write.key === 'email' ? 'primaryEmail' : 'primaryPhone';
      const value = write.key === 'email' ? deps.identifiers.email(raw) : deps.identifiers.phone(raw);
      if (!value || value === current[field]) continue;
      const holder = await repos.contacts.findByPrimary(contact.organizationId, field, value);
      if (holder && holder.id !== contact.id) {
        row(write.key, value, current[field], 'rejected_duplicate_identity');
        continue;
      }
      if (current[field] && source === 'extraction') continue;
      row(write.key, value, current[field]);
      patch[field] = value;
      current = { ...current, [field]: value };
    } else if (write.key === 'name' || write.key === 'displayName') {
      if (raw === current.displayName) continue;
      if (current.displayNameSource && STRONGER[current.displayNameSource] > STRONGER[source]) continue;
      row('name', raw, current.displayName);
      patch.displayName = raw;
      patch.displayNameSource = source;
      current = { ...current, displayName: raw, displayNameSource: source };
    } else {
      const previous = current.attributes[write.key];
      if (previous === raw) continue;
      if (previous != null && source === 'extraction') continue;
      row(write.key, raw, previous == null ? null : String(previous));
      current.attributes[write.key] = raw;
      patch.attributes = current.attributes;
    }
  }
  if (rows.length) await repos.contacts.appendHistory(contact.organizationId, contact.id, rows);
  if (Object.keys(patch).length === 0) return current;
  return (await repos.contacts.update(contact.organizationId, contact.id, patch)) ?? current;
}

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;
const PHONE = /\+?\d[\d\s().-]{6,18}\d/g;
// A capitalised name after a self-introduction ("my name is Ada Lovelace", "I'm Ada", "call me Ada").
const NAME = /(?:\b[Mm]y name is|\b[Cc]all me|\bI am|\bI'm|\b[Tt]his is)\s+([A-Z][\p{L}'-]{1,40}(?:\s+[A-Z][\p{L}'-]{1,40})?)/u;
const NOT_NAMES = new Set(['Here', 'Just', 'Not', 'Looking', 'Interested', 'Fine', 'Good', 'Sorry', 'Happy', 'Trying', 'The']);

/** The offline extractor (source `extraction`): emails, phone numbers and self-introduced names in a visitor message. */
export function extractContactFields(text: string, identifiers: ContactDeps['identifiers']): FieldWrite[] {
  const writes: FieldWrite[] = [];
  const email = text.match(EMAIL)?.[0];
  if (email && identifiers.email(email)) writes.push({ key: 'email', value: email });
  for (const candidate of text.replace(EMAIL, ' ').match(PHONE) ?? []) {
    if (identifiers.phone(candidate)) {
      writes.push({ key: 'phone', value: candidate });
      break;
    }
  }
  const name = NAME.exec(text)?.[1];
  if (name && !NOT_NAMES.has(name.split(/\s+/)[0])) writes.push({ key: 'name', value: name });
  return writes;
}
