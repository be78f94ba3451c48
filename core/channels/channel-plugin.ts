/**
 * The channel kind of the plugin contract (docs/writing-a-plugin.md): what a channel type adds to the common
 * manifest. A plugin declares the schema of a channel's secrets (write-only, per channel), verifies inbound
 * traffic on the request path (signature checks and challenges only: cheap, no I/O), parses the accepted
 * payload in the worker, normalises the sender identity and delivers replies through the transports its
 * context gives it (no network module of its own).
 */
import type { IdentifierNormalizer } from '../contacts/contact-deps';
import type { JsonSchema, PluginManifest } from '../plugin-contract/plugin-manifest';
import type { PluginSecrets } from '../plugin-contract/plugin-secrets';

/** An inbound HTTP request to `/api/public/channels/:channelId/inbound`. */
export interface InboundRequest {
  method: 'GET' | 'POST';
  query: Record<string, string>;
  /** Lower-case header names. */
  headers: Record<string, string | undefined>;
  /** The exact bytes received (signatures are computed over them). */
  rawBody: Buffer;
}

export type InboundVerdict =
  /** Answer now with this body (a verification challenge). */
  | { kind: 'respond'; status: number; body: string; contentType?: string }
  /** Verified: queue the payload for the worker; answer 200. */
  | { kind: 'accept'; payload: unknown }
  /** Failed verification: 401, nothing stored. */
  | { kind: 'reject'; message: string }
  /** This type takes no inbound webhook (web, widget: the public chat lane). */
  | { kind: 'unsupported' };

/** One message a person sent, as the plugin parsed it. */
export interface InboundMessage {
  /** The channel's id of the message (WhatsApp message id, email Message-ID): redeliveries are dropped by it. */
  externalId: string;
  /** The sender's identifier, normalised (E.164, lowercased email). */
  from: string;
  fromName?: string | null;
  text: string;
  /** Media references (WhatsApp media id and type), recorded with the message. */
  media?: { type: string; id: string; mimeType?: string; caption?: string }[];
  /** Earlier message ids this one answers (email In-Reply-To and References): they thread the conversation. */
  replyTo?: string[];
  subject?: string | null;
}

export interface OutboundMessage {
  /**
   * A stable id of this message, the same on every attempt (the delivery id): a plugin that names what it sends
   * (the email Message-ID) derives the name from it, so a retried send is the same message.
   */
  id?: string;
  /** The recipient's identifier (the contact's channel identity). */
  to: string;
  text: string;
  /** The inbound message answered (email threading). */
  inReplyTo?: { externalId: string; subject?: string | null; references?: string[] } | null;
}

/** A JSON POST to a configured upstream (the Graph API): the only network a channel plugin gets for HTTP. */
export type ChannelHttp = (
  url: string,
  init: { headers: Record<string, string>; body: string },
) => Promise<{ status: number; text: string }>;

/** Sends one email through the configured SMTP relay. */
export type ChannelMailer = (mail: {
  from: string;
  to: string;
  subject: string;
  text: string;
  messageId: string;
  inReplyTo?: string;
  references?: string[];
}) => Promise<void>;

export interface ChannelContext {
  /** The channel's validated config. */
  config: Record<string, unknown>;
  /** The channel's secrets (never returned or logged). */
  secrets: Record<string, string>;
  /** Platform configuration keys the plugin declared (e.g. the Graph API base URL). */
  platform: PluginSecrets;
  identifiers: IdentifierNormalizer;
  http: ChannelHttp;
  mail: ChannelMailer;
  /** A fresh id (outbound Message-IDs). */
  newId(): string;
}

export interface ChannelPlugin extends PluginManifest<'channel'> {
  /** The contact identity channel of its senders (`whatsapp_business` for the `whatsapp` alias too). */
  readonly identityChannel: string;
  /** JSON schema of the per-channel secrets (write-only). */
  readonly secretsSchema?: JsonSchema;
  /** Request path: verify the sender (constant-time signature checks) or answer a challenge. */
  receive(request: InboundRequest, ctx: ChannelContext): InboundVerdict;
  /** Worker: the messages of an accepted payload (statuses and other notifications: none). */
  parse(payload: unknown, ctx: ChannelContext): InboundMessage[];
  /**
   * Worker: delivers a reply; resolves once the provider accepted it (returning the sent message id when the
   * channel gives one) and throws otherwise: the platform retries with backoff (an error with code `VALIDATION`
   * is not retried).
   */
  send?(message: OutboundMessage, ctx: ChannelContext): Promise<{ externalId?: string }>;
}

/** The channel kind's members beyond the common manifest (given to the plugin registry). */
export const CHANNEL_KIND_SPEC = {
  methods: ['receive', 'parse'],
  optional: ['identityChannel', 'secretsSchema', 'send'],
  commonOptions: {},
  check(plugin: Record<string, unknown>): string[] {
    const problems: string[] = [];
    if (typeof plugin.identityChannel !== 'string' || !plugin.identityChannel) problems.push('needs an identityChannel');
    const caps = plugin.capabilities as string[];
    if (caps.includes('outbound') && typeof plugin.send !== 'function') problems.push('declares outbound but has no send()');
    return problems;
  },
} as const;
