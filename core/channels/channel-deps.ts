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
/** Queue of operator messages to deliver through a conversation's channel. */
export const CHANNEL_OUTBOUND_QUEUE = 'channels.outbound';

export interface InboundJob {
  channelId: string;
  payload: unknown;
}

export interface OutboundJob {
  channelId: string;
  conversationId: string;
  text: string;
}

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
  log: (level: 'debug' | 'info' | 'warn' | 'error', message: string, extra?: unknown) => void;
}
