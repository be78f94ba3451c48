import type { channelOperations } from '../../../contracts/operations/channels';
import type { ChannelDeps } from '../../../core/channels/channel-deps';
import type { InboundRequest } from '../../../core/channels/channel-plugin';
import { createChannel, deleteChannel, listChannels, updateChannel, verifyChannel } from '../../../core/channels/channels';
import { listChannelDeliveries } from '../../../core/channels/deliveries';
import { receiveInbound } from '../../../core/channels/inbound';
import { type HandlerContext, type HandlerResult, requireActor, typedHandlers } from '../handler';

function inboundRequest(ctx: HandlerContext<unknown, unknown>): InboundRequest {
  const query: Record<string, string> = {};
  for (const [k, v] of Object.entries(ctx.req.query)) if (typeof v === 'string') query[k] = v;
  const headers: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(ctx.req.headers)) headers[k.toLowerCase()] = Array.isArray(v) ? v[0] : v;
  // The exact bytes the sender signed (kept by the signed-request reader).
  const raw = ctx.res.locals.rawBody;
  return { method: ctx.req.method === 'GET' ? 'GET' : 'POST', query, headers, rawBody: Buffer.isBuffer(raw) ? raw : Buffer.alloc(0) };
}

async function inbound(d: ChannelDeps, ctx: HandlerContext<unknown, unknown>): Promise<HandlerResult | void> {
  const answer = await receiveInbound(d, ctx.params.channelId, inboundRequest(ctx));
  ctx.res.status(answer.status).type(answer.contentType).send(answer.body);
}

export const channelRoutes = (d: ChannelDeps) =>
  typedHandlers<ReturnType<typeof channelOperations>>()({
    createChannel: async (ctx) => ({ status: 201, body: await createChannel(d, requireActor(ctx), ctx.params.id, ctx.body) }),
    listChannels: async (ctx) => ({ status: 200, body: await listChannels(d, requireActor(ctx), ctx.params.id) }),
    updateChannel: async (ctx) => ({
      status: 200,
      body: await updateChannel(d, requireActor(ctx), ctx.params.id, ctx.params.channelId, ctx.body),
    }),
    verifyChannel: async (ctx) => ({
      status: 200,
      body: await verifyChannel(d, requireActor(ctx), ctx.params.id, ctx.params.channelId, ctx.body.code),
    }),
    listChannelDeliveries: async (ctx) => ({
      status: 200,
      body: await listChannelDeliveries(d, requireActor(ctx), ctx.params.id, ctx.params.channelId, {
        limit: ctx.query.limit,
        offset: ctx.query.offset,
      }),
    }),
    deleteChannel: async (ctx) => {
      await deleteChannel(d, requireActor(ctx), ctx.params.id, ctx.params.channelId);
      return { status: 204 };
    },
    channelInboundVerify: (ctx) => inbound(d, ctx),
    channelInbound: (ctx) => inbound(d, ctx),
  });
