import type { Request, Response } from 'express';

import type { chatOperations } from '../../../contracts/operations/chat';
import { prepareAgentChat } from '../../../core/chat/agent-chat';
import type { ChatDeps } from '../../../core/chat/chat-deps';
import { type ChatResult, type PreparedChat, runChat } from '../../../core/chat/chat-pipeline';
import {
  getConversation,
  getConversationVariables,
  issueContextToken,
  listConversations,
  listMessages,
  setConversationVariables,
} from '../../../core/chat/conversations';
import { createConversation } from '../../../core/chat/create-conversation';
import { listAgentConversationMessages, listAgentConversations } from '../../../core/chat/operator-inbox';
import { pageRequest } from '../../../core/shared/pagination';
import { toHttpError } from '../error-mapper';
import { type HandlerContext, type HandlerMap, requireActor, typedHandlers } from '../handler';
import { abortOnDisconnect, SseWriter } from '../sse';

/** The JSON chat answer (spec 4.4). */
export const toChatBody = (r: ChatResult) => ({
  response: r.response,
  conversationId: r.conversationId,
  messageId: r.messageId,
  sources: r.sources,
  usage: r.usage,
  ...(r.voice !== undefined ? { voice: r.voice } : {}),
  ...takeoverFlag(r),
});

/** `operatorTakeover: true` on a held turn (an operator has the conversation); absent otherwise. */
export const takeoverFlag = (r: ChatResult) => (r.operatorTakeover ? { operatorTakeover: true as const } : {});

/** How a chat stream is framed: the platform's {token}/{done} frames, or OpenAI chunks. */
export interface ChatStreamFormat {
  /** Frames before the first token (e.g. OpenAI's role chunk). */
  start?(): unknown[];
  token(token: string): unknown;
  done(result: ChatResult): unknown[];
  error(e: unknown): unknown;
  /** A raw frame after the last one (`data: [DONE]\n\n`). */
  trailer?: string;
}

export const platformStreamFormat = (options: { includeSources?: boolean } = {}): ChatStreamFormat => ({
  token: (token) => ({ token }),
  done: (r) => [
    {
      done: true,
      ...(options.includeSources === false ? {} : { sources: r.sources }),
      usage: r.usage,
      conversationId: r.conversationId,
      messageId: r.messageId,
      ...(r.voice !== undefined ? { voice: r.voice } : {}),
      ...takeoverFlag(r),
    },
  ],
  error: (e) => {
    const { body } = toHttpError(e);
    return { error: body.error, message: body.message, ...(body.code ? { code: body.code } : {}) };
  },
});

/**
 * Runs a prepared chat as SSE. The headers go out (flushed) with the first token, so a failure before any
 * token is still an ordinary JSON error with its status; after that, an error is a final error frame. A client
 * that disconnects aborts the model call; the pipeline then bills exactly what was produced.
 * Public chat reuses it with `platformStreamFormat({ includeSources: false })`.
 */
export async function streamChat(
  deps: ChatDeps,
  prepared: PreparedChat,
  req: Request,
  res: Response,
  format: ChatStreamFormat = platformStreamFormat(),
  /** An answer already produced (sent as the final frames only). */
  precomputed?: ChatResult,
): Promise<void> {
  const sse = new SseWriter(res);
  const signal = abortOnDisconnect(req, res);
  const open = async () => {
    if (sse.isOpen) return;
    sse.open();
    for (const frame of format.start?.() ?? []) await sse.send(frame);
  };
  try {
    const result =
      precomputed ??
      (await runChat(deps, prepared, {
        signal,
        onToken: async (token) => {
          await open();
          await sse.send(format.token(token));
        },
      }));
    await open();
    for (const frame of format.done(result)) await sse.send(frame);
    if (format.trailer) await sse.raw(format.trailer);
  } catch (e) {
    if (!sse.isOpen) throw e;
    await sse.send(format.error(e));
  }
  sse.end();
}

/** JSON or SSE, as the prepared turn says (stream asked and the agent has streamingEnabled). */
export async function answerChat(deps: ChatDeps, prepared: PreparedChat, ctx: HandlerContext) {
  if (prepared.stream) return streamChat(deps, prepared, ctx.req, ctx.res);
  const result = await runChat(deps, prepared, { signal: abortOnDisconnect(ctx.req, ctx.res) });
  return { status: 200, body: toChatBody(result) };
}

export function chatRoutes(d: ChatDeps): HandlerMap {
  return typedHandlers<typeof chatOperations>()({
    chatWithAgent: async (ctx) => answerChat(d, await prepareAgentChat(d, requireActor(ctx), ctx.params.id, ctx.body, 'chat'), ctx),
    previewChat: async (ctx) => answerChat(d, await prepareAgentChat(d, requireActor(ctx), ctx.params.id, ctx.body, 'preview'), ctx),
    createConversation: async (ctx) => ({
      status: 201,
      body: { success: true, data: await createConversation(d, requireActor(ctx), ctx.params.id, ctx.body) },
    }),
    listConversations: async (ctx) => {
      const page = pageRequest(ctx.query, { limit: 50, max: 200 });
      const q = ctx.query as { botId?: string; userId?: string; platform?: string };
      return {
        status: 200,
        body: await listConversations(d, requireActor(ctx), { ...page, botId: q.botId, userId: q.userId, platform: q.platform }),
      };
    },
    getConversation: async (ctx) => ({ status: 200, body: await getConversation(d, requireActor(ctx), ctx.params.id) }),
    listConversationMessages: async (ctx) => ({ status: 200, body: await listMessages(d, requireActor(ctx), ctx.params.id) }),
    listAgentConversations: async (ctx) => {
      const q = ctx.query as { platform?: string; contactId?: string; updatedSince?: string };
      const page = pageRequest(ctx.query, { limit: 20, max: 100 });
      return {
        status: 200,
        body: await listAgentConversations(d, requireActor(ctx), ctx.params.id, {
          ...page,
          platform: q.platform,
          contactId: q.contactId,
          updatedSince: q.updatedSince,
        }),
      };
    },
    listAgentConversationMessages: async (ctx) => ({
      status: 200,
      body: await listAgentConversationMessages(d, requireActor(ctx), ctx.params.id, ctx.params.convId),
    }),
    setConversationVariables: async (ctx) => ({
      status: 200,
      body: await setConversationVariables(d, requireActor(ctx), ctx.params.id, ctx.params.convId, ctx.body),
    }),
    getConversationVariables: async (ctx) => ({
      status: 200,
      body: await getConversationVariables(d, requireActor(ctx), ctx.params.id, ctx.params.convId),
    }),
    createContextToken: async (ctx) => ({ status: 200, body: await issueContextToken(d, requireActor(ctx), ctx.params.id, ctx.body) }),
  });
}
