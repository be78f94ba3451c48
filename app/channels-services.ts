/**
 * Wiring of the channels area: contacts (identifiers normalised with libphonenumber-js) and, next, the channel
 * plugins with their inbound queue and outbound transports.
 */
import { libphonenumberIdentifiers } from '../adapters/libphonenumber/identifiers';
import type { ContactDeps } from '../core/contacts/contact-deps';
import type { Infrastructure } from './infrastructure';

export function buildContactDeps(infra: Infrastructure): ContactDeps {
  return { store: infra.store, clock: infra.clock, ids: infra.ids, identifiers: libphonenumberIdentifiers() };
}
