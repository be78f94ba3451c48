import type { publicChatOperations } from '../../../contracts/operations/public-chat';
import type { Agent } from '../../../core/agents/agent';
import { runChat } from '../../../core/chat/chat-pipeline';
import { type PresenceEvent, publishOperatorEvent, subscribePresence } from '../../../core/public-chat/presence';
import { getPublicAgent, loadPublicAgent } from '../../../core/public-chat/public-agent';
import { admitPublicUpload, getPublicAttachment, storePublicAttachment } from '../../../core/public-chat/public-attachments';
import { preparePublicChat } from '../../../core/public-chat/public-chat';
import type { PublicChatDeps } from '../../../core/public-chat/public-chat-deps';
import {
  createPublicConversation,
  deletePublicConversation,
  listPublicConversations,
  listPublicMessages,
  renamePublicConversation,
} from '../../../core/public-chat/public-conversations';
import { isDomainError } from '../../../core/shared/errors';
import { pageRequest } from '../../../core/shared/pagination';
import { type Handler, type HandlerContext, type HandlerMap, requireActor, typedHandlers } from '../handler';
import { abortOnDisconnect, SseWriter } from '../sse';
import { type ChatStreamFormat, platformStreamFormat, streamChat, takeoverFlag } from './chat.routes';
import { readMultipartFile } from './knowledge.multipart';

/** Public SSE frames: {token} pieces, then {done, usage, conversationId}; no sources (spec 4.5, 6). */
const publicStreamFormat: ChatStreamFormat = {
  ...platformStreamFormat({ includeSources: false }),
  done: (r) => [{ done: true, usage: r.usage, conversationId: r.conversationId, ...takeoverFlag(r) }],
};

/** A 429 carries Retry-After in seconds (spec 7); the error body itself is written by the API app. */
const withRetryAfter =
  <B, Q>(handler: Handler<B, Q>): Handler<B, Q> =>
  async (ctx) => {
    try {
      return await handler(ctx);
    } catch (e) {
      const seconds =
        isDomainError(e) && e.code === 'RATE_LIMITED'
          ? (e.details as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds
          : undefined;
      if (seconds !== undefined && !ctx.res.headersSent) ctx.res.setHeader('Retry-After', String(seconds));
      throw e;
    }
  };

const ok = (body: unknown, status = 200) => ({ status, body });

/**
 * Streams a visitor's presence events until the client disconnects: a slot under the open-stream caps taken
 * first (429 before any header goes out; freed when the stream closes), subscribed before the headers go out (so
 * an operator event sent once the client sees the stream is never missed), a comment heartbeat, and the
 * subscription closed on disconnect.
 */
async function presenceStream(
  d: PublicChatDeps,
  agent: Agent,
  ctx: HandlerContext<unknown, { anonymousId: string }>,
  clientIp: string,
): Promise<void> {
  const release = d.presenceStreams.acquire({ anonymousId: ctx.query.anonymousId, clientIp });
  try {
    const sse = new SseWriter(ctx.res);
    let queue = Promise.resolve();
    const subscription = await subscribePresence(d, agent, ctx.query.anonymousId, ctx.params.conversationId, (event: PresenceEvent) => {
      queue = queue.then(() => sse.send(event));
    });
    sse.open();
    await sse.raw(': connected\n\n');
    const heartbeat = setInterval(() => {
      queue = queue.then(() => sse.raw(': ping\n\n'));
    }, d.presenceHeartbeatMs);
    await new Promise<void>((resolve) => {
      if (sse.closed) return resolve();
      ctx.res.once('close', () => resolve());
    });
    clearInterval(heartbeat);
    await subscription.close().catch(() => undefined);
  } finally {
    release();
  }
}

export function publicChatRoutes(d: PublicChatDeps): HandlerMap {
  const agentOf = (ctx: HandlerContext) => loadPublicAgent(d.chat.store.repos, ctx.params.slug, ctx.actor);
  const clientIp = (ctx: HandlerContext) => ctx.identity.clientIp ?? '';
  return typedHandlers<typeof publicChatOperations>()({
    getPublicAgent: async (ctx) => ok(await getPublicAgent(d.chat.store.repos, ctx.params.slug, ctx.actor)),
    createPublicConversation: withRetryAfter(async (ctx) =>
      ok({ success: true, data: await createPublicConversation(d, await agentOf(ctx), ctx.body.anonymousId, clientIp(ctx)) }),
    ),
    listPublicConversations: async (ctx) =>
      ok(await listPublicConversations(d, await agentOf(ctx), ctx.query.anonymousId, pageRequest(ctx.query, { limit: 20, max: 100 }))),
    listPublicConversationMessages: async (ctx) =>
      ok(
        await listPublicMessages(
          d,
          await agentOf(ctx),
          ctx.query.anonymousId,
          ctx.params.conversationId,
          pageRequest(ctx.query, { limit: 50, max: 100 }),
        ),
      ),
    renamePublicConversation: async (ctx) =>
      ok(await renamePublicConversation(d, await agentOf(ctx), ctx.body.anonymousId, ctx.params.conversationId, ctx.body.title)),
    deletePublicConversation: async (ctx) =>
      ok(await deletePublicConversation(d, await agentOf(ctx), ctx.query.anonymousId, ctx.params.conversationId)),
    publicChat: withRetryAfter(async (ctx) => {
      const prepared = await preparePublicChat(d, await agentOf(ctx), ctx.body, clientIp(ctx));
      if (prepared.stream) return streamChat(d.chat, prepared, ctx.req, ctx.res, publicStreamFormat);
      const r = await runChat(d.chat, prepared, { signal: abortOnDisconnect(ctx.req, ctx.res) });
      return ok({ response: r.response, conversationId: r.conversationId, usage: r.usage, ...takeoverFlag(r) });
    }),
    uploadPublicAttachment: withRetryAfter(async (ctx) => {
      const agent = await agentOf(ctx);
      // Refusals (403, 429) come before the body is read.
      const ip = clientIp(ctx);
      const anonymousId = await admitPublicUpload(d, agent, ctx.query.anonymousId, ip);
      const file = await readMultipartFile(ctx.req, { maxBytes: d.attachments.settings.maxBytes });
      return ok(
        await storePublicAttachment(
          d,
          agent,
          anonymousId,
          { filename: file.filename, declaredMimeType: file.mimeType, bytes: file.bytes },
          ip,
        ),
      );
    }),
    getPublicAttachment: async (ctx) =>
      ok(
        await getPublicAttachment(
          d,
          await agentOf(ctx),
          ctx.query.anonymousId,
          ctx.params.attachmentId,
          ctx.req.headers['x-attachment-token'],
        ),
      ),
    publicConversationEvents: withRetryAfter(async (ctx) => presenceStream(d, await agentOf(ctx), ctx, clientIp(ctx))),
    publishOperatorEvent: async (ctx) =>
      ok(await publishOperatorEvent(d, requireActor(ctx), ctx.params.id, ctx.params.convId, ctx.body), 202),
  });
}
