/**
 * Email delivered to the platform's own SMTP listener (off by default). Address scheme: a message reaches the
 * active `email` channel whose configured `address` is one of its recipients (case-insensitive; at most one
 * active channel holds an address, and a chosen one only once verified: ./email-address.ts). When an allowed recipient domain is configured, any
 * other domain is refused: the listener is no relay. A recipient no channel serves is refused at RCPT (550), so
 * nothing is queued for it. An accepted message becomes the same `channels.inbound` job as the signed webhook's.
 */
import type { Channel } from './channel';
import { CHANNEL_INBOUND_QUEUE, type ChannelDeps, type InboundJob } from './channel-deps';

/** The parsed email both inbound paths (SMTP listener, signed webhook) hand to the worker. */
export interface InboundEmail {
  messageId: string;
  from: string;
  fromName?: string | null;
  subject?: string | null;
  text: string;
  inReplyTo?: string | null;
  references?: string[];
}

/** The channel serving this recipient, or null (unknown address, foreign domain, inactive channel). */
export async function emailChannelFor(deps: ChannelDeps, recipient: string, allowedDomain?: string): Promise<Channel | null> {
  const address = deps.contacts.identifiers.email(recipient);
  if (!address || !deps.registry.has('email')) return null;
  if (allowedDomain && address.slice(address.lastIndexOf('@') + 1) !== allowedDomain.toLowerCase()) return null;
  return deps.store.repos.channels.findActiveByAddress('email', address);
}

/** Queues the message once per channel it was addressed to (two recipients of one channel: one job). */
export async function acceptEmail(deps: ChannelDeps, channelIds: readonly string[], mail: InboundEmail): Promise<void> {
  for (const channelId of new Set(channelIds))
    await deps.queue.enqueue<InboundJob>(CHANNEL_INBOUND_QUEUE, { channelId, payload: JSON.stringify(mail) });
}
