/**
 * Who may receive an email address (docs/contracts.md "Email channel addresses"). An inbound address belongs to at most
 * one active email channel platform-wide (a second claim: ADDRESS_TAKEN, also enforced by a unique index). With
 * EMAIL_INBOUND_DOMAIN, a channel created without an address gets a generated one there, active at once; a chosen
 * address inside that domain is active at once too (the platform owns the domain). Any other chosen address —
 * every chosen address when no inbound domain is configured — stays inactive until the code mailed to it is given
 * back: an organization can only receive mail for a mailbox it can read.
 */
import { DomainError } from '../shared/errors';
import { sha256Hex } from '../shared/hash';
import type { Channel } from './channel';
import type { ChannelDeps } from './channel-deps';

/** Codes tried per mailed code: the next try answers 429 and a new code is needed (PATCH the address again). */
export const VERIFICATION_MAX_ATTEMPTS = 5;
/** How long a mailed code is valid. */
export const VERIFICATION_TTL_MS = 24 * 60 * 60 * 1000;

export const addressTaken = () => new DomainError('ADDRESS_TAKEN', 'This inbound address is already served by another channel');

export const addressOf = (config: Record<string, unknown>) => (typeof config.address === 'string' ? config.address : '');
const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1).toLowerCase();
const codeHash = (channelId: string, code: string) => sha256Hex(`${channelId}:${code}`);

/** An email channel's config without an address gets a generated one in the inbound domain (when configured). */
export function withInboundAddress(deps: ChannelDeps, type: string, config: Record<string, unknown>): Record<string, unknown> {
  if (type !== 'email' || config.address !== undefined || !deps.emailInboundDomain) return config;
  const local = sha256Hex(deps.ids.secret(16)).slice(0, 16);
  return { ...config, address: `${local}@${deps.emailInboundDomain}` };
}

/** Whether this address must be proven by a mailed code before its channel may be active. */
export const needsVerification = (deps: ChannelDeps, address: string) =>
  !deps.emailInboundDomain || domainOf(address) !== deps.emailInboundDomain.toLowerCase();

/** ADDRESS_TAKEN when another active email channel serves this address. */
export async function ensureAddressFree(deps: ChannelDeps, address: string, channelId?: string): Promise<void> {
  const holder = await deps.store.repos.channels.findActiveByAddress('email', address);
  if (holder && holder.id !== channelId) throw addressTaken();
}

/**
 * Records a new code for the channel's address (a previous one and its attempts are void) and mails it through
 * the SMTP relay. A failed send is logged, not fatal: the channel stays pending and PATCHing the address again
 * mails a new code.
 */
export async function startVerification(deps: ChannelDeps, channel: Channel): Promise<void> {
  const address = addressOf(channel.config);
  const code = String(parseInt(sha256Hex(deps.ids.secret(16)).slice(0, 12), 16) % 1_000_000).padStart(6, '0');
  const now = deps.clock.now();
  await deps.store.repos.channels.putVerification({
    channelId: channel.id,
    address,
    codeHash: codeHash(channel.id, code),
    attempts: 0,
    expiresAt: new Date(now.getTime() + VERIFICATION_TTL_MS).toISOString(),
    createdAt: now.toISOString(),
  });
  const domain = deps.emailInboundDomain ?? domainOf(address);
  try {
    await deps.mail({
      from: deps.emailInboundDomain ? `no-reply@${deps.emailInboundDomain}` : address,
      to: address,
      subject: `Your verification code: ${code}`,
      text:
        `Someone connected ${address} to an agent's email channel "${channel.label}".\n\n` +
        `Verification code: ${code}\n\nIt is valid for 24 hours. If this was not you, ignore this message: ` +
        'no mail to this address is delivered to the channel until the code is given.',
      messageId: `<verify-${deps.ids.uuid()}@${domain}>`,
    });
  } catch (error) {
    deps.log('warn', 'email channel verification code could not be sent', {
      channelId: channel.id,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

/**
 * `POST /api/bots/:id/channels/:channelId/verify {code}`: the right code activates the channel (unless another
 * channel took the address meanwhile: ADDRESS_TAKEN); a wrong or expired one is a 400; past
 * VERIFICATION_MAX_ATTEMPTS tries of one code, 429 whatever the code.
 */
export async function verifyChannelAddress(deps: ChannelDeps, channel: Channel, code: string): Promise<Channel> {
  const repo = deps.store.repos.channels;
  const pending = await repo.findVerification(channel.id);
  if (!pending || pending.address !== addressOf(channel.config))
    throw new DomainError('INVALID_STATE', 'This channel has no address waiting for verification');
  const attempts = await repo.countVerificationAttempt(channel.id);
  if (attempts > VERIFICATION_MAX_ATTEMPTS)
    throw new DomainError('RATE_LIMITED', 'Too many wrong codes: set the address again (PATCH the channel config) to get a new one');
  if (Date.parse(pending.expiresAt) <= deps.clock.now().getTime())
    throw new DomainError('VALIDATION', 'The code has expired: set the address again (PATCH the channel config) to get a new one');
  if (codeHash(channel.id, String(code).trim()) !== pending.codeHash) throw new DomainError('VALIDATION', 'The verification code is wrong');
  await ensureAddressFree(deps, pending.address, channel.id);
  const at = deps.clock.now().toISOString();
  const updated = await deps.store.transaction(async (repos) => {
    await repos.channels.deleteVerification(channel.id);
    return repos.channels.update(channel.organizationId, channel.id, { isActive: true, updatedAt: at });
  });
  if (!updated) throw new DomainError('NOT_FOUND', 'Channel not found');
  return updated;
}
