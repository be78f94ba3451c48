import { parsePhoneNumberFromString } from 'libphonenumber-js';

import type { IdentifierNormalizer } from '../../core/contacts/contact-deps';

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,253}\.[A-Za-z]{2,}$/;

/**
 * Contact identifiers: phones to E.164 with libphonenumber-js (a number without a country code is read in
 * `defaultCountry` when one is configured, else refused), emails trimmed and lowercased.
 */
export function libphonenumberIdentifiers(defaultCountry?: string): IdentifierNormalizer {
  return {
    phone(raw) {
      const text = raw.trim();
      // WhatsApp sends wa_id digits without the plus sign.
      const candidate = /^\d{8,15}$/.test(text) && !defaultCountry ? `+${text}` : text;
      const parsed = parsePhoneNumberFromString(candidate, defaultCountry as never);
      return parsed?.isValid() ? parsed.number : null;
    },
    email(raw) {
      const text = raw.trim().toLowerCase();
      return EMAIL.test(text) ? text : null;
    },
  };
}
