import type { platformOperations } from '../../../contracts/operations/platform';
import { recordAudit } from '../../../core/audit/audit-log';
import { type BillingDeps, topUp, walletOf } from '../../../core/billing/billing';
import { requireOrgPermission, requireSuperadmin } from '../../../core/identity/policy';
import { type HandlerMap, requireActor, typedHandlers } from '../handler';

export interface PlatformRouteDeps {
  billing: BillingDeps;
  openApiDocument: () => unknown;
}

const docsPage = `<!doctype html><html><head><meta charset="utf-8"><title>Agent Platform API</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2rem auto;padding:0 1rem}code{background:#f3f3f3;padding:0 .3em}
.op{border-top:1px solid #ddd;padding:.5rem 0}.m{display:inline-block;width:4.5rem;font-weight:600;text-transform:uppercase}</style></head>
<body><h1>Agent Platform API</h1><p>Machine-readable: <a href="/api/openapi.json">/api/openapi.json</a> (OpenAPI 3.1).</p><div id="ops">Loading…</div>
<script>fetch('/api/openapi.json').then(r=>r.json()).then(d=>{const out=[];for(const [p,ms] of Object.entries(d.paths))for(const [m,o] of Object.entries(ms))
out.push('<div class="op"><span class="m">'+m+'</span><code>'+p+'</code> — '+o.summary+(o['x-required-scope']?' <em>(scope '+o['x-required-scope']+')</em>':'')+'</div>');
document.getElementById('ops').innerHTML=out.join('')});</script></body></html>`;

export function platformRoutes(d: PlatformRouteDeps): HandlerMap {
  return typedHandlers<typeof platformOperations>()({
    openapi: async () => ({ status: 200, body: d.openApiDocument() }),
    docs: async ({ res }) => {
      // The page's one inline script and style need their own policy; every other answer keeps helmet's.
      res.setHeader(
        'Content-Security-Policy',
        "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
      );
      res.type('html').send(docsPage);
    },
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
