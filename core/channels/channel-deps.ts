import type { ChatDeps } from '../chat/chat-deps';
import type { ContactDeps } from '../contacts/contact-deps';
import type { OptionsValidator, PluginRegistry } from '../plugin-contract/plugin-registry';
import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { JobQueue } from '../ports/job-queue';
import type { Store } from '../ports/store';
import type { ChannelHttp, ChannelMailer, ChannelPlugin } from './channel-plugin';

/** Queue of accepted inbound payloads (the webhook answers 200 once the payload is queued). */
export const CHANNEL_INBOUND_QUEUE = 'channels.inbound';
/** Queue of channel delivery attempts (agent answers and operator messages: see ./deliveries.ts). */
export const CHANNEL_OUTBOUND_QUEUE = 'channels.outbound';

export interface InboundJob {
  channelId: string;
  payload: unknown;
}

/** One attempt of a channel delivery (one queue message per attempt number: copies of it are harmless). */
export interface ChannelDeliveryJob {
  organizationId: string;
  deliveryId: string;
  attempt: number;
}

/** An operator message to deliver, as versions before the delivery outbox queued it: recorded as a delivery first. */
export interface OutboundJob {
  channelId: string;
  conversationId: string;
  text: string;
  /** The stored operator message. */
  messageId?: string;
}

/** Retries of channel deliveries (docs/contracts.md "Delivery guarantees"). */
export interface ChannelDeliverySettings {
  /** Sends in all before a delivery is `failed`: 5. */
  maxAttempts: number;
  /** Wait after the n-th failed attempt: backoffMs * 2^(n-1) (CHANNEL_RETRY_BACKOFF_MS, default 5 s). */
  backoffMs: number;
  /**
   * A pending delivery whose next attempt was due, or that was last touched, longer ago than this lost its queue
   * message (or its worker died mid-attempt): the relay queues it again (JOB_LEASE_SECONDS; longer than one send).
   */
  relayAfterMs: number;
}

export const DEFAULT_CHANNEL_DELIVERY_SETTINGS: ChannelDeliverySettings = { maxAttempts: 5, backoffMs: 5000, relayAfterMs: 60_000 };

export interface ChannelDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  queue: JobQueue;
  registry: PluginRegistry<'channel', ChannelPlugin>;
  /** Compiles the plugins' secrets schemas. */
  validator: OptionsValidator;
  contacts: ContactDeps;
  chat: ChatDeps;
  http: ChannelHttp;
  mail: ChannelMailer;
  /** The platform's public base URL (read on use: completed once the gateway listens). */
  publicUrl: () => string;
  delivery: ChannelDeliverySettings;
  /**
   * EMAIL_INBOUND_DOMAIN: the platform's own inbound domain (lowercase). A new email channel without an address
   * gets one there; a chosen address outside it is verified by a mailed code first. Unset: every chosen address is
   * verified (docs/contracts.md "Email channel addresses").
   */
  emailInboundDomain?: string;
  log: (level: 'debug' | 'info' | 'warn' | 'error', message: string, extra?: unknown) => void;
}
