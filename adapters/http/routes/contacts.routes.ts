import type { Response } from 'express';

import type { contactOperations } from '../../../contracts/operations/contacts';
import type { ContactDeps } from '../../../core/contacts/contact-deps';
import { contactCsv, exportOrganizationFor, exportOrganizationForKey } from '../../../core/contacts/contact-export';
import { contactConversations, deleteContact, getContact, listContacts, setContactStatus } from '../../../core/contacts/contacts';
import { requireActor, requireApiKey, typedHandlers } from '../handler';

/** Writes the CSV chunk by chunk, waiting for the socket to drain (chunked; memory stays flat). */
async function streamCsv(res: Response, chunks: AsyncIterable<string>): Promise<void> {
  const iterator = chunks[Symbol.asyncIterator]();
  // The first chunk (header) is read before the status goes out, so a failing query still answers with an error.
  const first = await iterator.next();
  res.status(200);
  res.setHeader('Content-Type', 'text/csv; charset=utf-8');
  res.setHeader('Content-Disposition', 'attachment; filename=contacts.csv');
  res.setHeader('Cache-Control', 'no-store');
  if (!first.done) res.write(first.value);
  try {
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      if (res.destroyed) return;
      if (!res.write(next.value)) await new Promise((resolve) => res.once('drain', resolve));
    }
  } catch (e) {
    // Headers are gone: end the stream broken so the client sees a truncated transfer, not a clean file.
    res.destroy(e as Error);
    return;
  }
  res.end();
}

export const contactRoutes = (d: ContactDeps) =>
  typedHandlers<typeof contactOperations>()({
    exportContacts: async (ctx) => {
      const { organizationId, ...filters } = ctx.query;
      const org = await exportOrganizationFor(d, requireActor(ctx), organizationId);
      await streamCsv(ctx.res, contactCsv(d, org, filters));
    },
    exportContactsWithKey: async (ctx) => {
      await streamCsv(ctx.res, contactCsv(d, exportOrganizationForKey(requireApiKey(ctx)), ctx.query));
    },
    listContacts: async (ctx) => ({ status: 200, body: await listContacts(d, requireActor(ctx), ctx.query) }),
    getContact: async (ctx) => ({ status: 200, body: await getContact(d, requireActor(ctx), ctx.params.id) }),
    listContactConversations: async (ctx) => ({ status: 200, body: await contactConversations(d, requireActor(ctx), ctx.params.id) }),
    setContactStatus: async (ctx) => ({ status: 200, body: await setContactStatus(d, requireActor(ctx), ctx.params.id, ctx.body) }),
    deleteContact: async (ctx) => {
      await deleteContact(d, requireActor(ctx), ctx.params.id);
      return { status: 204 };
    },
  });
