import type { JobDeps } from '../../../core/jobs/job-deps';
import { organizationJob } from '../../../core/jobs/job-queries';
import type { ProvisioningDeps } from '../../../core/provisioning/provisioning-deps';
import { type FromUrlInput, requestBuild } from '../../../core/provisioning/request-build';
import { type HandlerMap, requireApiKey } from '../handler';
import { streamJobEvents } from '../job-sse';

export function provisioningRoutes(d: { provisioning: ProvisioningDeps; jobs: JobDeps }): HandlerMap {
  return {
    provisionAgentFromUrl: async (ctx) => {
      const header = ctx.req.get('idempotency-key');
      const body = await requestBuild(
        d.provisioning,
        requireApiKey(ctx),
        ctx.body as FromUrlInput,
        header === undefined ? undefined : header.trim(),
      );
      return { status: 202, body };
    },
    streamBuildEvents: async (ctx) => {
      const job = await organizationJob(d.jobs, requireApiKey(ctx).organizationId, ctx.params.buildId);
      await streamJobEvents(d.jobs, job.id, ctx.req, ctx.res);
    },
    getBuild: async (ctx) => {
      const job = await organizationJob(d.jobs, requireApiKey(ctx).organizationId, ctx.params.buildId);
      return { status: 200, body: d.jobs.kinds.eventOf(job) };
    },
  };
}
