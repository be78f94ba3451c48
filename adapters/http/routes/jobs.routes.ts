import type { JobDeps } from '../../../core/jobs/job-deps';
import { getJobEvent, listJobWebhookDeliveries, readableJob } from '../../../core/jobs/job-queries';
import { type HandlerMap, requireActor } from '../handler';
import { streamJobEvents } from '../job-sse';

export function jobRoutes(d: JobDeps): HandlerMap {
  return {
    getJob: async (ctx) => ({ status: 200, body: await getJobEvent(d, requireActor(ctx), ctx.params.jobId) }),
    streamJobEvents: async (ctx) => {
      const job = await readableJob(d, requireActor(ctx), ctx.params.jobId);
      await streamJobEvents(d, job.id, ctx.req, ctx.res);
    },
    listJobWebhookDeliveries: async (ctx) => ({
      status: 200,
      body: await listJobWebhookDeliveries(d, requireActor(ctx), ctx.params.jobId),
    }),
  };
}
