/** docs/contracts.md "Delivery guarantees": a reply is `sent` only once the provider accepted it. */
export type ChannelDeliveryStatus = 'pending' | 'sent' | 'failed';

/**
 * What a delivery sends on every attempt: the plugin contract's OutboundMessage (core/channels/channel-plugin.ts)
 * without its id (the delivery id is given). Declared here so the repositories port does not import the plugin
 * contract.
 */
export interface ChannelDeliveryPayload {
  /** The recipient's identifier (the contact's channel identity). */
  to: string;
  text: string;
  /** The inbound message answered (email threading). */
  inReplyTo?: { externalId: string; subject?: string | null; references?: string[] } | null;
}

/**
 * One message to send through a channel (an agent's answer to an inbound message, or an operator's message): the
 * outbox row of its queue messages, with its attempts. Written next to the stored answer; sent by the
 * `channels.outbound` worker, one queue message per attempt.
 */
export interface ChannelDelivery {
  id: string;
  organizationId: string;
  channelId: string;
  agentId: string;
  conversationId: string;
  /** The inbound provider message id this answers (unique per channel); null for operator messages. */
  inboundMessageId: string | null;
  /** The stored message (assistant answer, operator message) it carries. */
  messageId: string | null;
  /** The provider's id of the sent message (WhatsApp message id, email Message-ID), once accepted. */
  externalId: string | null;
  /** Exactly what is sent on every attempt: recipient, text, threading. */
  payload: ChannelDeliveryPayload;
  status: ChannelDeliveryStatus;
  attempts: number;
  /** The error of the latest failed attempt; kept after a later success (attempts > 1 tells it was retried). */
  lastError: string | null;
  /** When the next attempt is due; null while an attempt is under way or once settled. */
  nextAttemptAt: string | null;
  createdAt: string;
  updatedAt: string;
  sentAt: string | null;
}

/** The outcome of one attempt, recorded on the row. */
export interface ChannelDeliveryAttempt {
  status: ChannelDeliveryStatus;
  lastError: string | null;
  nextAttemptAt: string | null;
  externalId: string | null;
  updatedAt: string;
  sentAt: string | null;
}

/** `{deliveries[]}` of `GET /api/bots/:id/channels/:channelId/deliveries`. */
export interface ChannelDeliveryView {
  id: string;
  conversationId: string;
  status: ChannelDeliveryStatus;
  attempts: number;
  lastError: string | null;
  createdAt: string;
  sentAt: string | null;
}

export interface ChannelDeliveryRepository {
  /** Inserts the delivery; false when the channel has one for this inbound message id already (nothing written). */
  create(delivery: ChannelDelivery): Promise<boolean>;
  find(organizationId: string, id: string): Promise<ChannelDelivery | null>;
  /** The delivery answering this inbound provider message id of the channel (any organization: the worker's lookup). */
  findForInbound(channelId: string, inboundMessageId: string): Promise<ChannelDelivery | null>;
  /**
   * Takes attempt `previousAttempts + 1` of a pending delivery before it is sent (compare-and-set on the count, so
   * two copies of one queue message never both send; clears `nextAttemptAt`: an attempt is under way); false when
   * another took it or the delivery settled.
   */
  claimAttempt(organizationId: string, id: string, previousAttempts: number, at: string): Promise<boolean>;
  /**
   * Records the outcome of attempt `attempts` on a pending delivery that still counts that many attempts
   * (compare-and-set); false when it changed meanwhile.
   */
  recordAttempt(organizationId: string, id: string, attempts: number, outcome: ChannelDeliveryAttempt): Promise<boolean>;
  /** The channel's deliveries, newest first (creation time, then id). */
  listForChannel(organizationId: string, channelId: string, page: { limit: number; offset: number }): Promise<ChannelDelivery[]>;
  /**
   * Pending deliveries of every organization whose next attempt was due, or which were last touched, before
   * `before` (their queue message was lost or their worker died), oldest first: what the relay queues again.
   */
  listStalled(before: string, limit: number): Promise<ChannelDelivery[]>;
}
