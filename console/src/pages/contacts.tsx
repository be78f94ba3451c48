import { useState } from 'preact/hooks';

import type { ContactFilters } from '../../../sdk';
import { api } from '../api';
import { ErrorNotice, Field, formatDate, formValues, Page, useAction, useLoad } from '../ui';

/** Contacts (spec 4.11) with the list filters; the CSV export uses the same filters. */
export function ContactsPage() {
  const [filters, setFilters] = useState<ContactFilters>({});
  const list = useLoad(() => api.listContacts({ ...filters, limit: 50 }), [filters.search, filters.channel, filters.status]);
  const exportCsv = useAction(async () => {
    const blob = await api.exportContacts(filters);
    const url = URL.createObjectURL(blob);
    const a = document.createElement('a');
    a.href = url;
    a.download = 'contacts.csv';
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  });
  return (
    <Page title="Contacts">
      <form
        class="card inline"
        role="search"
        onSubmit={(e) => {
          const v = formValues(e);
          // The selects offer only the contract's values.
          setFilters({
            search: v.search || undefined,
            channel: (v.channel || undefined) as ContactFilters['channel'],
            status: (v.status || undefined) as ContactFilters['status'],
          });
        }}
      >
        <Field label="Search name, phone or email">
          <input name="search" type="search" />
        </Field>
        <Field label="Channel">
          <select name="channel">
            <option value="">Any</option>
            <option value="web">Web</option>
            <option value="widget">Widget</option>
            <option value="email">Email</option>
            <option value="whatsapp_business">WhatsApp Business</option>
          </select>
        </Field>
        <Field label="Status">
          <select name="status">
            <option value="">Any</option>
            <option value="new">New</option>
            <option value="engaged">Engaged</option>
            <option value="qualified">Qualified</option>
            <option value="closed">Closed</option>
          </select>
        </Field>
        <button type="submit">Apply filters</button>
        <button type="button" disabled={exportCsv.busy} onClick={() => void exportCsv.run()}>
          Export CSV
        </button>
      </form>
      <ErrorNotice error={list.error ?? exportCsv.error} />
      <table>
        <caption>{list.data ? `${list.data.total} contacts` : 'Contacts'}</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Email</th>
            <th scope="col">Phone</th>
            <th scope="col">Status</th>
            <th scope="col">Channels</th>
            <th scope="col">Conversations</th>
            <th scope="col">Last seen</th>
          </tr>
        </thead>
        <tbody>
          {list.data?.contacts.map((c) => (
            <tr key={c.id}>
              <td>{c.displayName ?? '—'}</td>
              <td>{c.primaryEmail ?? '—'}</td>
              <td>{c.primaryPhone ?? '—'}</td>
              <td>
                <span class={`badge ${c.status}`}>{c.status}</span>
              </td>
              <td>{c.channels.join(', ')}</td>
              <td>{c.conversationCount}</td>
              <td>{formatDate(c.lastSeenAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Page>
  );
}
