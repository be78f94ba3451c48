import type { promptOperations } from '../../../contracts/operations/prompts';
import { publishPromptConfig, resetPromptSection, savePromptConfig, writeLegacySection } from '../../../core/prompts/prompt-commands';
import type { PromptDeps } from '../../../core/prompts/prompt-deps';
import { getPromptConfigVersion, listPromptConfigVersions, listPromptSections } from '../../../core/prompts/prompt-queries';
import { type HandlerMap, requireActor, typedHandlers } from '../handler';

export function promptRoutes(d: PromptDeps): HandlerMap {
  return typedHandlers<typeof promptOperations>()({
    savePromptConfigVersion: async (ctx) => ({ status: 201, body: await savePromptConfig(d, requireActor(ctx), ctx.params.id, ctx.body) }),
    listPromptConfigVersions: async (ctx) => ({
      status: 200,
      body: await listPromptConfigVersions(d, requireActor(ctx), ctx.params.id, ctx.query.limit ?? 50),
    }),
    getPromptConfigVersion: async (ctx) => ({
      status: 200,
      body: await getPromptConfigVersion(d, requireActor(ctx), ctx.params.id, ctx.params.versionId),
    }),
    publishPromptConfig: async (ctx) => ({
      status: 200,
      body: await publishPromptConfig(d, requireActor(ctx), ctx.params.id, ctx.body?.versionId),
    }),
    listPromptSections: async (ctx) => ({ status: 200, body: await listPromptSections(d, requireActor(ctx), ctx.params.id) }),
    resetPromptSection: async (ctx) => ({
      status: 200,
      body: await resetPromptSection(d, requireActor(ctx), ctx.params.id, ctx.params.type, ctx.query.instanceRef ?? null),
    }),
    writePromptConfigSection: async (ctx) => ({
      status: 200,
      body: await writeLegacySection(d, requireActor(ctx), ctx.params.id, ctx.params.type, ctx.body),
    }),
  });
}
