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
  type ChannelDeps,
  type InboundJob,
  type OutboundJob,
} from '../core/channels/channel-deps';
import { processInboundJob, processOutboundJob } from '../core/channels/inbound';
import type { ChatDeps } from '../core/chat/chat-deps';
import type { ContactDeps } from '../core/contacts/contact-deps';
import { ajvOptionsValidator } from '../plugins/kit/ajv-options-validator';
import type { Consumer } from './consumer';
import type { Infrastructure } from './infrastructure';

export function buildContactDeps(infra: Infrastructure): ContactDeps {
  return { store: infra.store, clock: infra.clock, ids: infra.ids, identifiers: libphonenumberIdentifiers() };
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
    log: (level, message, extra) => infra.log(level, message, extra),
  };
}

/** The worker of `channels.inbound`: parse, dedupe, resolve the contact, answer, reply through the plugin. */
export const channelInboundConsumer: Consumer<{ channels: ChannelDeps }> = {
  queue: CHANNEL_INBOUND_QUEUE,
  start: (infra, services) =>
    infra.queue.consume<InboundJob>(CHANNEL_INBOUND_QUEUE, (job) => processInboundJob(services.channels, job), {
      concurrency: 2,
      maxAttempts: 3,
      backoffMs: 2000,
    }),
};

/** The worker of `channels.outbound`: operator messages delivered through the conversation's channel. */
export const channelOutboundConsumer: Consumer<{ channels: ChannelDeps }> = {
  queue: CHANNEL_OUTBOUND_QUEUE,
  start: (infra, services) =>
    infra.queue.consume<OutboundJob>(CHANNEL_OUTBOUND_QUEUE, (job) => processOutboundJob(services.channels, job), {
      concurrency: 2,
      maxAttempts: 5,
      backoffMs: 2000,
    }),
};
