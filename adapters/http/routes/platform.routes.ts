import type { platformOperations } from '../../../contracts/operations/platform';
import { recordAudit } from '../../../core/audit/audit-log';
import { type BillingDeps, topUp, walletOf } from '../../../core/billing/billing';
import { requireOrgPermission, requireSuperadmin } from '../../../core/identity/policy';
import { type DocsAsset, sendDocsAsset, sendDocsPage } from '../api-docs';
import { type HandlerMap, requireActor, typedHandlers } from '../handler';

export interface PlatformRouteDeps {
  billing: BillingDeps;
  openApiDocument: () => unknown;
}

export function platformRoutes(d: PlatformRouteDeps): HandlerMap {
  return typedHandlers<typeof platformOperations>()({
    openapi: async () => ({ status: 200, body: d.openApiDocument() }),
    docs: async ({ res }) => sendDocsPage(res),
    docsAsset: async ({ res, params }) => sendDocsAsset(res, params.file as DocsAsset),
    wallet: async (ctx) => ({ status: 200, body: await walletOf(d.billing, requireOrgPermission(requireActor(ctx), 'billing.read')) }),
    topUpCredits: async (ctx) => {
      const actor = requireActor(ctx);
      requireSuperadmin(actor);
      // One transaction: a top-up is never committed without its audit entry.
      const wallet = await d.billing.store.transaction(async (repos) => {
        const topped = await topUp(d.billing, ctx.params.id, ctx.body.amountUsd);
        await recordAudit(d.billing, repos, {
          organizationId: ctx.params.id,
          actorId: actor.userId,
          action: 'billing.top_up',
          resourceType: 'wallet',
          resourceId: ctx.params.id,
          metadata: { amountUsd: ctx.body.amountUsd },
        });
        return topped;
      });
      return { status: 200, body: { wallet } };
    },
    listAuditLog: async (ctx) => {
      const organizationId = requireOrgPermission(requireActor(ctx), 'audit.read');
      const { limit, offset, ...filter } = ctx.query;
      const page = await d.billing.store.repos.audit.list(organizationId, { limit, offset, ...filter });
      return { status: 200, body: { entries: page.items, total: page.total, limit, offset } };
    },
  });
}
