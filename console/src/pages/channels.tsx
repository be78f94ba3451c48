import { useState } from 'preact/hooks';

import { api, type Channel, createChannel, deleteChannel, listChannels, updateChannel } from '../api';
import { ErrorNotice, Field, formatDate, Link, Page, useAction, useLoad } from '../ui';

/**
 * The fields of each channel type, as its plugin validates them (docs/contracts.md "Channels"). Secrets are write-only:
 * the platform never returns them, so their inputs start empty and a blank input leaves the stored value alone.
 */
interface TypeFields {
  label: string;
  config: { name: string; label: string; required?: boolean; list?: boolean; hint?: string }[];
  secrets: { name: string; label: string; required?: boolean }[];
}
const CHANNEL_TYPES: Record<string, TypeFields> = {
  widget: {
    label: 'Chat widget',
    config: [{ name: 'allowedOrigins', label: 'Allowed origins', list: true, hint: 'One per line, e.g. https://shop.example' }],
    secrets: [],
  },
  web: {
    label: 'Web page',
    config: [{ name: 'allowedOrigins', label: 'Allowed origins', list: true, hint: 'One per line' }],
    secrets: [],
  },
  email: {
    label: 'Email',
    config: [
      { name: 'address', label: 'Address people write to', required: true },
      { name: 'fromName', label: 'Sender name' },
    ],
    secrets: [{ name: 'webhookSecret', label: 'Inbound webhook secret (16+ characters)' }],
  },
  whatsapp_business: {
    label: 'WhatsApp Business',
    config: [
      { name: 'phoneNumberId', label: 'Phone number id', required: true },
      { name: 'displayPhoneNumber', label: 'Display phone number' },
    ],
    secrets: [
      { name: 'appSecret', label: 'App secret', required: true },
      { name: 'accessToken', label: 'Access token', required: true },
      { name: 'verifyToken', label: 'Webhook verify token', required: true },
    ],
  },
};

/** Reads a channel form: config values (lists split by line), and only the secrets that were typed. */
function readForm(form: HTMLFormElement, fields: TypeFields) {
  const data = new FormData(form);
  const config: Record<string, unknown> = {};
  for (const f of fields.config) {
    const value = String(data.get(`config.${f.name}`) ?? '').trim();
    if (f.list)
      config[f.name] = value
        .split('\n')
        .map((v) => v.trim())
        .filter(Boolean);
    else if (value) config[f.name] = value;
  }
  const secrets: Record<string, string> = {};
  for (const f of fields.secrets) {
    const value = String(data.get(`secret.${f.name}`) ?? '');
    if (value) secrets[f.name] = value;
  }
  return { label: String(data.get('label') ?? '').trim(), config, secrets };
}

function ChannelFields({ fields, channel, idPrefix }: { fields: TypeFields; channel?: Channel; idPrefix: string }) {
  return (
    <>
      <Field label="Label">
        <input name="label" required maxLength={200} defaultValue={channel?.label ?? ''} />
      </Field>
      {fields.config.map((f) => {
        const current = channel?.config[f.name];
        return (
          <Field key={`${idPrefix}-${f.name}`} label={f.label} hint={f.hint}>
            {f.list ? (
              <textarea name={`config.${f.name}`} rows={2} defaultValue={Array.isArray(current) ? current.join('\n') : ''} />
            ) : (
              <input name={`config.${f.name}`} required={f.required} defaultValue={typeof current === 'string' ? current : ''} />
            )}
          </Field>
        );
      })}
      {fields.secrets.map((f) => (
        <Field
          key={`${idPrefix}-${f.name}`}
          label={f.label}
          hint={channel ? 'Write-only: leave empty to keep the stored value' : 'Write-only: never shown again'}
        >
          <input name={`secret.${f.name}`} type="password" autoComplete="new-password" required={!channel && f.required} />
        </Field>
      ))}
    </>
  );
}

function ChannelRow({ agentId, channel, onChanged }: { agentId: string; channel: Channel; onChanged(): void }) {
  const [editing, setEditing] = useState(false);
  const fields = CHANNEL_TYPES[channel.type] ?? { label: channel.type, config: [], secrets: [] };
  const save = useAction(async (form: HTMLFormElement) => {
    await updateChannel(agentId, channel.id, readForm(form, fields));
    setEditing(false);
    onChanged();
  });
  const toggle = useAction(async () => {
    await updateChannel(agentId, channel.id, { isActive: !channel.isActive });
    onChanged();
  });
  const remove = useAction(async () => {
    await deleteChannel(agentId, channel.id);
    onChanged();
  });
  return (
    <li class="card" data-testid="channel">
      <h3>{channel.label}</h3>
      <p>
        {fields.label} · <span class={`badge ${channel.isActive ? 'published' : 'draft'}`}>{channel.isActive ? 'active' : 'inactive'}</span>{' '}
        · created {formatDate(channel.createdAt)}
      </p>
      {fields.secrets.length ? (
        <p>
          Inbound webhook: <code>{new URL(channel.inboundUrl, location.origin).href}</code>
        </p>
      ) : null}
      <div class="row">
        <button type="button" onClick={() => setEditing(!editing)} aria-expanded={editing}>
          {editing ? 'Cancel editing' : `Edit ${channel.label}`}
        </button>
        <button type="button" disabled={toggle.busy} onClick={() => void toggle.run()}>
          {channel.isActive ? `Deactivate ${channel.label}` : `Activate ${channel.label}`}
        </button>
        <button type="button" disabled={remove.busy} onClick={() => void remove.run()}>
          Delete {channel.label}
        </button>
      </div>
      <ErrorNotice error={toggle.error ?? remove.error} />
      {editing ? (
        <form
          class="card"
          aria-label={`Edit ${channel.label}`}
          onSubmit={(e) => {
            e.preventDefault();
            void save.run(e.currentTarget);
          }}
        >
          <ChannelFields fields={fields} channel={channel} idPrefix={channel.id} />
          <ErrorNotice error={save.error} />
          <button type="submit" class="primary" disabled={save.busy}>
            Save channel
          </button>
        </form>
      ) : null}
    </li>
  );
}

/** An agent's channels: list, connect (type-specific fields, write-only secrets), edit, deactivate, delete. */
export function AgentChannelsPage({ id }: { id: string }) {
  const agent = useLoad(() => api.getAgent(id), [id]);
  const channels = useLoad(() => listChannels(id), [id]);
  const [type, setType] = useState('widget');
  const fields = CHANNEL_TYPES[type]!;
  const create = useAction(async (form: HTMLFormElement) => {
    await createChannel(id, { type, ...readForm(form, fields) });
    form.reset();
    channels.reload();
  });
  return (
    <Page title={agent.data ? `Channels: ${agent.data.name}` : 'Channels'}>
      <p>
        <Link to={`/agents/${id}`}>Back to the agent</Link>
      </p>
      <ErrorNotice error={agent.error ?? channels.error} />
      <section aria-labelledby="channels-h">
        <h2 id="channels-h">Connected channels</h2>
        {channels.data?.channels.length === 0 ? <p>No channel yet: the agent answers on the API and its public page only.</p> : null}
        <ul class="cards">
          {channels.data?.channels.map((c) => (
            <ChannelRow key={c.id} agentId={id} channel={c} onChanged={channels.reload} />
          ))}
        </ul>
      </section>
      <section aria-labelledby="channel-new">
        <h2 id="channel-new">Connect a channel</h2>
        <form
          class="card"
          onSubmit={(e) => {
            e.preventDefault();
            void create.run(e.currentTarget);
          }}
        >
          <Field label="Channel type">
            <select value={type} onChange={(e) => setType((e.currentTarget as HTMLSelectElement).value)}>
              {Object.entries(CHANNEL_TYPES).map(([value, t]) => (
                <option key={value} value={value}>
                  {t.label}
                </option>
              ))}
            </select>
          </Field>
          <ChannelFields key={type} fields={fields} idPrefix={`new-${type}`} />
          <ErrorNotice error={create.error} />
          <button type="submit" class="primary" disabled={create.busy}>
            Connect channel
          </button>
        </form>
      </section>
    </Page>
  );
}
