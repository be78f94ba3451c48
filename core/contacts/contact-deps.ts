import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { Store } from '../ports/store';

/** Normalises identifiers (E.164 phones with a maintained library, lowercased emails); null when not one. */
export interface IdentifierNormalizer {
  phone(raw: string): string | null;
  email(raw: string): string | null;
}

export interface ContactDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  identifiers: IdentifierNormalizer;
}
