/**
 * Wiring of the channels area: contacts (identifiers normalised with libphonenumber-js), the channel plugins
 * with their transports (JSON POSTs to configured upstreams, the SMTP relay) and the inbound/outbound workers.
 */
import { libphonenumberIdentifiers } from '../adapters/libphonenumber/identifiers';
import { channelHttp } from '../adapters/outbound/channel-http';
import { nodemailerMailer } from '../adapters/smtp/nodemailer.mailer';
import {
  CHANNEL_INBOUND_QUEUE,
  CHANNEL_OUTBOUND_QUEUE,
  type ChannelDeliveryJob,
  type ChannelDeliverySettings,
  type ChannelDeps,
  DEFAULT_CHANNEL_DELIVERY_SETTINGS,
  type InboundJob,
  type OutboundJob,
} from '../core/channels/channel-deps';
import { processOutboundJob, relayStalledChannelDeliveries } from '../core/channels/deliveries';
import { processInboundJob } from '../core/channels/inbound';
import type { ChatDeps } from '../core/chat/chat-deps';
import type { ContactDeps } from '../core/contacts/contact-deps';
import type { Subscription } from '../core/ports/job-queue';
import { ajvOptionsValidator } from '../plugins/kit/ajv-options-validator';
import type { Consumer } from './consumer';
import type { Infrastructure } from './infrastructure';

export function buildContactDeps(infra: Infrastructure): ContactDeps {
  return { store: infra.store, clock: infra.clock, ids: infra.ids, identifiers: libphonenumberIdentifiers() };
}

/** The longest one send may take (the Graph API call and the SMTP relay are bounded below it). */
const SEND_BOUND_MS = 30_000;

/**
 * CHANNEL_RETRY_BACKOFF_MS spaces the attempts; a delivery untouched for JOB_LEASE_SECONDS (but never less than one
 * send's bound, so a slow send is not started twice) is taken up again by the relay.
 */
export function channelDeliverySettings(settings: Readonly<Record<string, unknown>>): ChannelDeliverySettings {
  const number = (key: string, fallback: number) => (typeof settings[key] === 'number' ? (settings[key] as number) : fallback);
  return {
    ...DEFAULT_CHANNEL_DELIVERY_SETTINGS,
    backoffMs: number('CHANNEL_RETRY_BACKOFF_MS', DEFAULT_CHANNEL_DELIVERY_SETTINGS.backoffMs),
    relayAfterMs: Math.max(number('JOB_LEASE_SECONDS', DEFAULT_CHANNEL_DELIVERY_SETTINGS.relayAfterMs / 1000) * 1000, SEND_BOUND_MS + 5000),
  };
}

export function buildChannelDeps(infra: Infrastructure, contacts: ContactDeps, chat: ChatDeps): ChannelDeps {
  const registry = infra.plugins.channels;
  return {
    store: infra.store,
    clock: infra.clock,
    ids: infra.ids,
    queue: infra.queue,
    registry,
    validator: ajvOptionsValidator(),
    contacts,
    chat,
    http: channelHttp(),
    mail: nodemailerMailer(() => (registry.has('email') ? registry.secrets('email').get('EMAIL_SMTP_RELAY_URL') : undefined)),
    publicUrl: () => infra.config.publicUrl,
    delivery: channelDeliverySettings(infra.config.settings),
    ...(typeof infra.config.settings.EMAIL_INBOUND_DOMAIN === 'string'
      ? { emailInboundDomain: infra.config.settings.EMAIL_INBOUND_DOMAIN.toLowerCase() }
      : {}),
    log: (level, message, extra) => infra.log(level, message, extra),
  };
}

/** The worker of `channels.inbound`: parse, dedupe, resolve the contact, answer, record the reply's delivery. */
export const channelInboundConsumer: Consumer<{ channels: ChannelDeps }> = {
  queue: CHANNEL_INBOUND_QUEUE,
  start: (infra, services) =>
    infra.queue.consume<InboundJob>(CHANNEL_INBOUND_QUEUE, (job) => processInboundJob(services.channels, job), {
      concurrency: 2,
      maxAttempts: 3,
      backoffMs: 2000,
    }),
};

/**
 * The worker of `channels.outbound`: one message per delivery attempt (agent replies and operator messages); the
 * delivery row counts and spaces the attempts. Queue retries here only cover a failing store.
 */
export const channelOutboundConsumer: Consumer<{ channels: ChannelDeps }> = {
  queue: CHANNEL_OUTBOUND_QUEUE,
  start: (infra, services) =>
    infra.queue.consume<ChannelDeliveryJob | OutboundJob>(CHANNEL_OUTBOUND_QUEUE, (job) => processOutboundJob(services.channels, job), {
      concurrency: 2,
      maxAttempts: 5,
      backoffMs: 2000,
    }),
};

/** Not a queue consumer: relays stalled channel deliveries at start and then every quarter relay delay. */
export const channelDeliveryRelayConsumer: Consumer<{ channels: ChannelDeps }> = {
  queue: `${CHANNEL_OUTBOUND_QUEUE}.relay`,
  async start(_infra, services): Promise<Subscription> {
    const deps = services.channels;
    let running: Promise<unknown> | null = null;
    const tick = () => {
      if (running) return; // the previous pass is still going
      running = relayStalledChannelDeliveries(deps)
        .catch((error) => deps.log('error', 'channel delivery relay failed', error))
        .finally(() => (running = null));
    };
    tick();
    const timer = setInterval(tick, Math.max(1000, Math.floor(deps.delivery.relayAfterMs / 4)));
    timer.unref();
    return {
      close: async () => {
        clearInterval(timer);
        await running;
      },
    };
  },
};
