/** Channel CRUD under an agent (docs/contracts.md "Channels"): needs edit on the agent; secrets are write-only. */
import { loadAgent } from '../agents/agent-access';
import type { Actor } from '../identity/actor';
import { DomainError } from '../shared/errors';
import type { Channel, ChannelView } from './channel';
import type { ChannelDeps } from './channel-deps';
import type { ChannelContext } from './channel-plugin';
import {
  addressOf,
  ensureAddressFree,
  needsVerification,
  startVerification,
  verifyChannelAddress,
  withInboundAddress,
} from './email-address';

export const channelNotFound = () => new DomainError('NOT_FOUND', 'Channel not found');

export function channelView(deps: Pick<ChannelDeps, 'publicUrl'>, c: Channel): ChannelView {
  return {
    id: c.id,
    botId: c.agentId,
    type: c.type,
    label: c.label,
    isActive: c.isActive,
    config: c.config,
    createdAt: c.createdAt,
    inboundUrl: `${deps.publicUrl().replace(/\/$/, '')}/api/public/channels/${c.id}/inbound`,
  };
}

const compiled = new WeakMap<object, ReturnType<ChannelDeps['validator']['compile']>>();

function checkSecrets(deps: ChannelDeps, type: string, secrets: Record<string, unknown>): Record<string, string> {
  const plugin = deps.registry.get(type);
  if (!plugin.secretsSchema) {
    if (Object.keys(secrets).length)
      throw new DomainError('VALIDATION', `A ${type} channel takes no secrets`, [{ field: 'secrets', message: 'not allowed' }]);
    return {};
  }
  let check = compiled.get(plugin.secretsSchema);
  if (!check) compiled.set(plugin.secretsSchema, (check = deps.validator.compile(plugin.secretsSchema)));
  const result = check({ ...secrets });
  if (!result.valid)
    // The messages name fields and rules, never values.
    throw new DomainError('VALIDATION', `Invalid secrets for a ${type} channel: ${result.errors.join('; ')}`, { errors: result.errors });
  return result.value as Record<string, string>;
}

export interface ChannelInput {
  type?: string;
  label?: string;
  isActive?: boolean;
  config?: Record<string, unknown>;
  secrets?: Record<string, unknown>;
}

export async function createChannel(deps: ChannelDeps, actor: Actor, agentId: string, input: ChannelInput) {
  const agent = await loadAgent(deps.store.repos, actor, agentId, 'edit');
  const type = String(input.type ?? '');
  deps.registry.usable(type);
  const config = deps.registry.validateOptions(type, withInboundAddress(deps, type, input.config ?? {}));
  const secrets = checkSecrets(deps, type, input.secrets ?? {});
  const at = deps.clock.now().toISOString();
  // Email (docs/contracts.md "Email channel addresses"): an address already served is refused; one outside the inbound
  // domain waits for its mailed code, inactive.
  const verify = type === 'email' && needsVerification(deps, addressOf(config));
  if (type === 'email') await ensureAddressFree(deps, addressOf(config));
  const channel: Channel = {
    id: deps.ids.uuid(),
    organizationId: agent.organizationId,
    agentId: agent.id,
    type,
    label: (input.label ?? '').trim() || type,
    isActive: !verify,
    config,
    secrets,
    createdAt: at,
    updatedAt: at,
  };
  await deps.store.repos.channels.create(channel);
  if (verify) await startVerification(deps, channel);
  return { channel: channelView(deps, channel) };
}

export async function listChannels(deps: ChannelDeps, actor: Actor, agentId: string) {
  const agent = await loadAgent(deps.store.repos, actor, agentId, 'edit');
  const channels = await deps.store.repos.channels.listForAgent(agent.organizationId, agent.id);
  return { channels: channels.map((c) => channelView(deps, c)) };
}

/** The agent's channel, for a caller with edit on the agent: another organization's or agent's channel is a 404. */
export async function loadChannel(deps: ChannelDeps, actor: Actor, agentId: string, channelId: string) {
  const agent = await loadAgent(deps.store.repos, actor, agentId, 'edit');
  const channel = await deps.store.repos.channels.findById(channelId);
  if (!channel || channel.organizationId !== agent.organizationId || channel.agentId !== agent.id) throw channelNotFound();
  return channel;
}

export async function updateChannel(deps: ChannelDeps, actor: Actor, agentId: string, channelId: string, input: ChannelInput) {
  const channel = await loadChannel(deps, actor, agentId, channelId);
  const config = input.config !== undefined ? deps.registry.validateOptions(channel.type, input.config) : undefined;
  let isActive = input.isActive;
  let verify = false;
  if (channel.type === 'email') {
    const address = addressOf(config ?? channel.config);
    const pending = await deps.store.repos.channels.findVerification(channel.id);
    const waiting = !!pending && pending.address === addressOf(channel.config);
    const readdressed = config !== undefined && address.toLowerCase() !== addressOf(channel.config).toLowerCase();
    if (readdressed || (config !== undefined && waiting)) {
      // A new address (or the pending one set again: a new code) is claimed afresh.
      verify = needsVerification(deps, address);
      if (verify) isActive = false;
      else if (pending) await deps.store.repos.channels.deleteVerification(channel.id);
    } else if (waiting && input.isActive === true)
      throw new DomainError('INVALID_STATE', 'The address is not verified yet: POST the mailed code to .../verify first');
    if (!verify && (isActive ?? channel.isActive)) await ensureAddressFree(deps, address, channel.id);
  }
  const updated = await deps.store.repos.channels.update(channel.organizationId, channel.id, {
    ...(input.label !== undefined ? { label: input.label.trim() || channel.type } : {}),
    ...(isActive !== undefined ? { isActive } : {}),
    ...(config !== undefined ? { config } : {}),
    // Secrets given are merged over the stored ones, then checked whole.
    ...(input.secrets !== undefined ? { secrets: checkSecrets(deps, channel.type, { ...channel.secrets, ...input.secrets }) } : {}),
    updatedAt: deps.clock.now().toISOString(),
  });
  if (!updated) throw channelNotFound();
  if (verify) await startVerification(deps, updated);
  return { channel: channelView(deps, updated) };
}

/** `POST /api/bots/:id/channels/:channelId/verify {code}` (needs edit on the agent): see ./email-address.ts. */
export async function verifyChannel(deps: ChannelDeps, actor: Actor, agentId: string, channelId: string, code: string) {
  const channel = await loadChannel(deps, actor, agentId, channelId);
  return { channel: channelView(deps, await verifyChannelAddress(deps, channel, code)) };
}

export async function deleteChannel(deps: ChannelDeps, actor: Actor, agentId: string, channelId: string) {
  const channel = await loadChannel(deps, actor, agentId, channelId);
  await deps.store.repos.channels.delete(channel.organizationId, channel.id);
}

/** What a channel's plugin sees: its config and secrets, the platform keys it declared, the transports. */
export function channelContext(deps: ChannelDeps, channel: Channel): ChannelContext {
  return {
    config: channel.config,
    secrets: channel.secrets,
    platform: deps.registry.secrets(channel.type),
    identifiers: deps.contacts.identifiers,
    http: deps.http,
    mail: deps.mail,
    newId: () => deps.ids.uuid(),
  };
}
