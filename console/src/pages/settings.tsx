import { useState } from 'preact/hooks';

import { api } from '../api';
import { ErrorNotice, Field, formatDate, formValues, Page, useAction, useLoad } from '../ui';

function Members({ orgId }: { orgId: string }) {
  const members = useLoad(() => api.listMembers(orgId), [orgId]);
  const seats = useLoad(() => api.seats(orgId), [orgId]);
  const invitations = useLoad(() => api.listInvitations(orgId), [orgId]);
  const [token, setToken] = useState<string | null>(null);
  const invite = useAction(async (v: Record<string, string>) => {
    const r = await api.createInvitation(orgId, { email: v.email!, role: v.role as 'admin' | 'member' | 'viewer' });
    setToken(r.token);
    invitations.reload();
    seats.reload();
  });
  const revoke = useAction(async (id: string) => {
    await api.revokeInvitation(orgId, id);
    invitations.reload();
    seats.reload();
  });
  return (
    <section aria-labelledby="members-h">
      <h2 id="members-h">Members</h2>
      {seats.data ? (
        <p>
          Seats: {seats.data.usedSeats} used, {seats.data.pendingInvitations} held by invitations, {seats.data.totalSeats} in the plan
        </p>
      ) : null}
      <ErrorNotice error={members.error ?? seats.error} />
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
          </tr>
        </thead>
        <tbody>
          {members.data?.members.map((m) => (
            <tr key={m.userId}>
              <td>{m.displayName}</td>
              <td>{m.email}</td>
              <td>{m.role}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>Invitations</h3>
      <form class="card inline" onSubmit={(e) => void invite.run(formValues(e))}>
        <Field label="Email">
          <input name="email" type="email" required />
        </Field>
        <Field label="Role">
          <select name="role">
            <option value="member">Member</option>
            <option value="admin">Admin</option>
            <option value="viewer">Viewer</option>
          </select>
        </Field>
        <button type="submit" disabled={invite.busy}>
          Invite
        </button>
      </form>
      {token ? (
        <p role="status">
          Invitation token (send it to the invitee; shown once): <code>{token}</code>
        </p>
      ) : null}
      <ErrorNotice error={invite.error ?? revoke.error ?? invitations.error} />
      <ul>
        {invitations.data?.invitations.map((i) => (
          <li key={i.id}>
            {i.email} · {i.role} · {i.status} · expires {formatDate(i.expiresAt)}{' '}
            <button type="button" onClick={() => void revoke.run(i.id)}>
              Revoke invitation for {i.email}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

function ApiKeys() {
  const keys = useLoad(() => api.listApiKeys(), []);
  const [secret, setSecret] = useState<string | null>(null);
  const create = useAction(async (form: HTMLFormElement) => {
    const data = new FormData(form);
    const r = await api.createApiKey({ name: String(data.get('name')), scopes: data.getAll('scopes').map(String) });
    setSecret(r.key);
    keys.reload();
  });
  const revoke = useAction(async (id: string) => {
    await api.revokeApiKey(id);
    keys.reload();
  });
  return (
    <section aria-labelledby="keys-h">
      <h2 id="keys-h">API keys</h2>
      <form
        class="card inline"
        onSubmit={(e) => {
          e.preventDefault();
          void create.run(e.currentTarget);
        }}
      >
        <Field label="Key name">
          <input name="name" required maxLength={100} />
        </Field>
        <fieldset>
          <legend>Scopes</legend>
          <label class="check">
            <input type="checkbox" name="scopes" value="agents:write" defaultChecked /> agents:write
          </label>
          <label class="check">
            <input type="checkbox" name="scopes" value="contacts:read" /> contacts:read
          </label>
        </fieldset>
        <button type="submit" disabled={create.busy}>
          Create key
        </button>
      </form>
      {secret ? (
        <p role="status">
          New key (copy it now; it is not shown again): <code>{secret}</code>
        </p>
      ) : null}
      <ErrorNotice error={create.error ?? revoke.error ?? keys.error} />
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Prefix</th>
            <th scope="col">Scopes</th>
            <th scope="col">Last used</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {keys.data?.apiKeys.map((k) => (
            <tr key={k.id}>
              <td>{k.name}</td>
              <td>
                <code>{k.prefix}</code>
              </td>
              <td>{k.scopes.join(', ')}</td>
              <td>{formatDate(k.lastUsedAt)}</td>
              <td>
                <button type="button" onClick={() => void revoke.run(k.id)}>
                  Revoke {k.name}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function WalletAndAudit() {
  const wallet = useLoad(() => api.wallet(), []);
  const audit = useLoad(() => api.auditLog({ limit: 50 }), []);
  return (
    <>
      <section aria-labelledby="wallet-h">
        <h2 id="wallet-h">Wallet</h2>
        <ErrorNotice error={wallet.error} />
        {wallet.data ? (
          <p>
            Balance: <strong data-testid="wallet-balance">${wallet.data.balance.toFixed(4)}</strong> ({wallet.data.events.length} recent
            billing events)
          </p>
        ) : null}
      </section>
      <section aria-labelledby="audit-h">
        <h2 id="audit-h">Audit log</h2>
        <ErrorNotice error={audit.error} />
        <table>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Action</th>
              <th scope="col">Resource</th>
            </tr>
          </thead>
          <tbody>
            {audit.data?.entries.map((e) => (
              <tr key={e.id}>
                <td>{formatDate(e.createdAt)}</td>
                <td>{e.action}</td>
                <td>
                  {e.resourceType} {e.resourceId ?? ''}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </>
  );
}

/** Organization settings: members and invitations, API keys, wallet and audit log. */
export function SettingsPage() {
  const orgId = api.organizationId!;
  return (
    <Page title="Organization">
      <Members orgId={orgId} />
      <ApiKeys />
      <WalletAndAudit />
    </Page>
  );
}
