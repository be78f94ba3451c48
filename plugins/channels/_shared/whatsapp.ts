/**
 * WhatsApp Business through the Cloud API. Inbound: the webhook verification challenge (GET with hub.mode,
 * hub.verify_token, hub.challenge) and message notifications (POST signed with X-Hub-Signature-256, the
 * HMAC-SHA256 of the raw body keyed with the app secret). Replies: POST {graph}/{phoneNumberId}/messages with
 * the channel's access token; the Graph API base URL is platform configuration (a local fake in tests).
 */
import type { ChannelContext, ChannelPlugin, InboundMessage } from '../../../core/channels/channel-plugin';
import { sameSecret, validHmacSha256 } from './signature';

const DEFAULT_GRAPH_URL = 'https://graph.facebook.com/v20.0';
export const WHATSAPP_GRAPH_API_URL = 'WHATSAPP_GRAPH_API_URL';

interface WaMessage {
  id?: string;
  from?: string;
  type?: string;
  text?: { body?: string };
  [media: string]: unknown;
}
interface WaValue {
  contacts?: { wa_id?: string; profile?: { name?: string } }[];
  messages?: WaMessage[];
}

const MEDIA_TYPES = ['image', 'audio', 'video', 'document', 'sticker'];

function toMessage(m: WaMessage, value: WaValue, ctx: ChannelContext): InboundMessage | null {
  const from = typeof m.from === 'string' ? ctx.identifiers.phone(m.from) : null;
  if (!m.id || !from) return null;
  const name = value.contacts?.find((c) => c.wa_id === m.from)?.profile?.name ?? null;
  const media: NonNullable<InboundMessage['media']> = [];
  let text = m.type === 'text' ? (m.text?.body ?? '') : '';
  if (m.type && MEDIA_TYPES.includes(m.type)) {
    const part = (m[m.type] ?? {}) as { id?: string; mime_type?: string; caption?: string };
    if (part.id) media.push({ type: m.type, id: part.id, mimeType: part.mime_type, caption: part.caption });
    // The model reads a reference; the media itself stays with Meta until someone fetches it.
    text = [part.caption, `[${m.type} ${part.id ?? ''}]`.trim()].filter(Boolean).join(' ');
  }
  if (!text.trim()) return null; // reactions, locations...: nothing to answer
  return { externalId: m.id, from, fromName: name, text, media };
}

export function whatsappChannel(type: 'whatsapp_business' | 'whatsapp'): ChannelPlugin {
  return {
    kind: 'channel',
    type,
    description:
      type === 'whatsapp'
        ? 'WhatsApp (alias of whatsapp_business): a WhatsApp Business number through the Cloud API'
        : 'A WhatsApp Business number through the Cloud API (webhook + Graph API messages)',
    optionsSchema: {
      type: 'object',
      required: ['phoneNumberId'],
      properties: {
        phoneNumberId: { type: 'string', pattern: '^[0-9]{1,30}$', description: 'Cloud API phone number id' },
        displayPhoneNumber: { type: 'string', maxLength: 30 },
      },
    },
    secretsSchema: {
      type: 'object',
      required: ['appSecret', 'accessToken', 'verifyToken'],
      additionalProperties: false,
      properties: {
        appSecret: { type: 'string', minLength: 8, maxLength: 500 },
        accessToken: { type: 'string', minLength: 8, maxLength: 2000 },
        verifyToken: { type: 'string', minLength: 8, maxLength: 500 },
      },
    },
    secrets: [{ name: WHATSAPP_GRAPH_API_URL, description: `Graph API base URL (default ${DEFAULT_GRAPH_URL})`, required: false }],
    capabilities: ['inbound', 'outbound', 'verify'],
    identityChannel: 'whatsapp_business',
    receive(request, ctx) {
      if (request.method === 'GET') {
        const ok = request.query['hub.mode'] === 'subscribe' && sameSecret(request.query['hub.verify_token'], ctx.secrets.verifyToken);
        if (!ok) return { kind: 'reject', message: 'Webhook verification failed' };
        return { kind: 'respond', status: 200, body: request.query['hub.challenge'] ?? '', contentType: 'text/plain; charset=utf-8' };
      }
      if (!validHmacSha256(request.headers['x-hub-signature-256'], ctx.secrets.appSecret, request.rawBody))
        return { kind: 'reject', message: 'Invalid X-Hub-Signature-256' };
      return { kind: 'accept', payload: request.rawBody.toString('utf8') };
    },
    parse(payload, ctx) {
      let body: { entry?: { changes?: { value?: WaValue }[] }[] };
      try {
        body = JSON.parse(String(payload));
      } catch {
        return [];
      }
      const messages: InboundMessage[] = [];
      for (const entry of body?.entry ?? [])
        for (const change of entry?.changes ?? []) {
          const value = change?.value ?? {};
          // Statuses (sent, delivered, read) carry no messages: nothing to do.
          for (const m of value.messages ?? []) {
            const parsed = toMessage(m, value, ctx);
            if (parsed) messages.push(parsed);
          }
        }
      return messages;
    },
    async send(message, ctx) {
      const base = (ctx.platform.get(WHATSAPP_GRAPH_API_URL) ?? DEFAULT_GRAPH_URL).replace(/\/+$/, '');
      const url = `${base}/${encodeURIComponent(String(ctx.config.phoneNumberId))}/messages`;
      const res = await ctx.http(url, {
        headers: { authorization: `Bearer ${ctx.secrets.accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          messaging_product: 'whatsapp',
          recipient_type: 'individual',
          to: message.to.replace(/^\+/, ''),
          type: 'text',
          text: { preview_url: false, body: message.text.slice(0, 4096) },
        }),
      });
      if (res.status < 200 || res.status >= 300)
        throw Object.assign(new Error(`Graph API answered ${res.status}`), { code: 'UPSTREAM_FAILED' });
      const id = (JSON.parse(res.text || '{}') as { messages?: { id?: string }[] }).messages?.[0]?.id;
      return { externalId: id };
    },
  };
}
