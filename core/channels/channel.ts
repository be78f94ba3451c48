/** Agent channels (docs/contracts.md "Channels"): where an agent meets people (web, widget, email, WhatsApp Business). */
export interface Channel {
  id: string;
  organizationId: string;
  agentId: string;
  type: string;
  label: string;
  isActive: boolean;
  config: Record<string, unknown>;
  /** Write-only: given to the plugin, never returned or logged. */
  secrets: Record<string, string>;
  createdAt: string;
  updatedAt: string;
}

/** `{channel:{...}}` of the channel endpoints: everything but the secrets, plus where inbound traffic goes. */
export interface ChannelView {
  id: string;
  botId: string;
  type: string;
  label: string;
  isActive: boolean;
  config: Record<string, unknown>;
  createdAt: string;
  inboundUrl: string;
}

export type ChannelPatch = Partial<Pick<Channel, 'label' | 'isActive' | 'config' | 'secrets' | 'updatedAt'>>;

/** The pending proof of a chosen email address (docs/contracts.md "Email channel addresses"): the code mailed to it. */
export interface AddressVerification {
  channelId: string;
  address: string;
  /** sha256 hex of `<channelId>:<code>`: the code itself is never stored. */
  codeHash: string;
  /** Codes tried so far. */
  attempts: number;
  expiresAt: string;
  createdAt: string;
}

export interface ChannelRepository {
  create(channel: Channel): Promise<void>;
  /** Any organization's channel (the public inbound lane knows only the id). */
  findById(id: string): Promise<Channel | null>;
  listForAgent(organizationId: string, agentId: string): Promise<Channel[]>;
  /**
   * The inbound webhook's lookup: `findById`, possibly from memory and then at most a few seconds old (a change
   * made through this repository is seen at once). The webhook only verifies and queues; the worker re-reads
   * the channel, so a channel deactivated meanwhile still drops the message.
   */
  findForInbound(id: string): Promise<Channel | null>;
  update(organizationId: string, id: string, patch: ChannelPatch): Promise<Channel | null>;
  delete(organizationId: string, id: string): Promise<boolean>;
  /** Deactivates every channel of an agent (the agent was deleted); returns how many. */
  deactivateForAgent(organizationId: string, agentId: string, at: string): Promise<number>;
  /** Records an inbound message id; false when it was seen already (a redelivery). */
  markInbound(channelId: string, externalId: string, at: string): Promise<boolean>;
  /** Ties a seen inbound message (or an outbound one, for email threading) to its conversation. */
  setInboundConversation(channelId: string, externalId: string, conversationId: string): Promise<void>;
  /** The conversation of the first of these message ids that is known (email In-Reply-To/References). */
  conversationOfMessages(channelId: string, externalIds: readonly string[]): Promise<string | null>;
  /**
   * The active channel of this type whose configured `address` is this one (case-insensitive). For email at most
   * one is (a unique index, migration 0077); `create` and `update` throw ADDRESS_TAKEN when they would make a
   * second one active.
   */
  findActiveByAddress(type: string, address: string): Promise<Channel | null>;
  /** Starts (or restarts, with a new code and no attempts) the verification of the channel's address. */
  putVerification(verification: AddressVerification): Promise<void>;
  findVerification(channelId: string): Promise<AddressVerification | null>;
  /** Counts one more code tried; returns the attempts made, this one included (0: no verification pending). */
  countVerificationAttempt(channelId: string): Promise<number>;
  /** Ends the channel's pending verification (address changed to one that needs none, or verified). */
  deleteVerification(channelId: string): Promise<void>;
  /**
   * The active channels of this type of the live agent published under this slug, oldest first: the public lane's
   * lookup (widget origins), possibly from memory like `findForInbound`.
   */
  findActiveForPublicSlug(type: string, slug: string): Promise<Channel[]>;
  /** The newest live conversation of this channel with this contact. */
  latestConversation(channelId: string, contactId: string): Promise<string | null>;
}
