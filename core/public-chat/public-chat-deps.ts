import type { AttachmentDeps } from '../attachments/attachment-deps';
import type { StoredAttachmentResolver } from '../attachments/attachment-resolver';
import type { ChatDeps } from '../chat/chat-deps';
import type { EventBus } from '../ports/event-bus';
import type { RateLimitStore } from '../ports/rate-limit-store';
import type { PresenceStreamSlots } from './presence-slots';

/**
 * Rate limits of the public surface (spec 8: uploads and chat are limited per IP and per anonymousId; the
 * numbers are configuration: PUBLIC_CHAT_PER_MINUTE, PUBLIC_CHAT_PER_IP_PER_MINUTE, PUBLIC_UPLOADS_PER_MINUTE,
 * PUBLIC_UPLOADS_PER_IP_PER_MINUTE). The per-IP limits are higher: several visitors may share an address.
 */
export interface PublicChatLimits {
  chat: { perVisitor: number; perIp: number };
  uploads: { perVisitor: number; perIp: number };
  windowSeconds: number;
}

export const DEFAULT_PUBLIC_CHAT_LIMITS: PublicChatLimits = {
  chat: { perVisitor: 20, perIp: 120 },
  uploads: { perVisitor: 10, perIp: 60 },
  windowSeconds: 60,
};

export interface PublicChatDeps {
  /** The same chat pipeline dependencies as the authenticated surface. */
  chat: ChatDeps;
  attachments: AttachmentDeps;
  /** The attachment store's resolver; public chat binds it to the visitor. */
  resolver: StoredAttachmentResolver;
  /** Operator presence events (topic `conversation.<id>.presence`). */
  bus: EventBus;
  rateLimits: RateLimitStore;
  limits: PublicChatLimits;
  /** Delivers an operator message of a channel conversation (email, WhatsApp) through its channel; queued. */
  channelOutbound?: (input: { channelId: string; conversationId: string; text: string; messageId?: string }) => Promise<void>;
  /** Comment heartbeat of the presence stream (15-25 s in production). */
  presenceHeartbeatMs: number;
  /** Open presence streams per anonymousId and per IP (429 over the cap; per process). */
  presenceStreams: PresenceStreamSlots;
}
