import {
  ATTACHMENT_QUEUE,
  type AttachmentDeps,
  type AttachmentJobPayload,
  DEFAULT_ATTACHMENT_SETTINGS,
} from '../core/attachments/attachment-deps';
import { StoredAttachmentResolver } from '../core/attachments/attachment-resolver';
import { ATTACHMENT_MAX_ATTEMPTS, processAttachmentJob } from '../core/attachments/extract-attachment';
import type { ChatDeps } from '../core/chat/chat-deps';
import type { Store } from '../core/ports/store';
import { PresenceStreamSlots } from '../core/public-chat/presence-slots';
import type { PublicChatDeps } from '../core/public-chat/public-chat-deps';
import { DEFAULT_PUBLIC_WORK_BUDGET, rateLimitedWorkBudget } from '../core/public-chat/work-budget';
import type { Consumer } from './consumer';
import type { Infrastructure } from './infrastructure';

/** Presence stream heartbeat: inside the 15-25 s proxies tolerate. */
export const PRESENCE_HEARTBEAT_MS = 20_000;

/** The chat pipeline's AttachmentResolver (wired into ChatDeps by chat-services.ts). */
export const attachmentResolver = (store: Store) => new StoredAttachmentResolver(store);

export function buildAttachmentDeps(infra: Infrastructure): AttachmentDeps {
  return {
    store: infra.store,
    clock: infra.clock,
    ids: infra.ids,
    blobs: infra.blobs,
    queue: infra.queue,
    loader: infra.knowledge.documentLoader,
    settings: { ...DEFAULT_ATTACHMENT_SETTINGS, maxBytes: infra.config.publicChat.attachmentMaxBytes },
    workBudget: rateLimitedWorkBudget(infra.rateLimits, infra.config.publicChat.workBudget ?? DEFAULT_PUBLIC_WORK_BUDGET),
    log: (level, message, extra) => infra.log(level, message, extra),
  };
}

export function buildPublicChatDeps(infra: Infrastructure, chat: ChatDeps): PublicChatDeps {
  const limits = infra.config.publicChat;
  return {
    chat,
    attachments: buildAttachmentDeps(infra),
    resolver: attachmentResolver(infra.store),
    bus: infra.bus,
    rateLimits: infra.rateLimits,
    limits: {
      chat: { perVisitor: limits.chatPerMinute, perIp: limits.chatPerIpPerMinute },
      uploads: { perVisitor: limits.uploadsPerMinute, perIp: limits.uploadsPerIpPerMinute },
      windowSeconds: 60,
    },
    presenceHeartbeatMs: PRESENCE_HEARTBEAT_MS,
    presenceStreams: new PresenceStreamSlots({ perVisitor: limits.presenceStreamsPerVisitor, perIp: limits.presenceStreamsPerIp }),
  };
}

/** The worker of `attachments.extract`. */
export const attachmentExtractConsumer: Consumer<{ publicChat: PublicChatDeps }> = {
  queue: ATTACHMENT_QUEUE,
  start: (infra, services) =>
    infra.queue.consume<AttachmentJobPayload>(ATTACHMENT_QUEUE, (job) => processAttachmentJob(services.publicChat.attachments, job), {
      concurrency: 2,
      maxAttempts: ATTACHMENT_MAX_ATTEMPTS,
      backoffMs: 2000,
    }),
};
