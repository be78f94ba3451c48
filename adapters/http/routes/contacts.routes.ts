import type { contactOperations } from '../../../contracts/operations/contacts';
import type { ContactDeps } from '../../../core/contacts/contact-deps';
import { contactExport, exportOrganizationFor, exportOrganizationForKey } from '../../../core/contacts/contact-export';
import { contactConversations, deleteContact, getContact, listContacts, setContactStatus } from '../../../core/contacts/contacts';
import { sendCsv } from '../csv-stream';
import { requireActor, requireApiKey, typedHandlers } from '../handler';

export const contactRoutes = (d: ContactDeps) =>
  typedHandlers<typeof contactOperations>()({
    exportContacts: async (ctx) => {
      const { organizationId, ...filters } = ctx.query;
      const org = await exportOrganizationFor(d, requireActor(ctx), organizationId);
      await sendCsv(ctx.res, await contactExport(d, org, filters));
    },
    exportContactsWithKey: async (ctx) => {
      await sendCsv(ctx.res, await contactExport(d, exportOrganizationForKey(requireApiKey(ctx)), ctx.query));
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
