import { allOperations } from '../contracts';
import { buildOpenApiDocument } from '../contracts/openapi';
import type { HandlerMap } from '../adapters/http/handler';
import { identityRoutes } from '../adapters/http/routes/identity.routes';
import { platformRoutes } from '../adapters/http/routes/platform.routes';
import { modelRoutes } from '../adapters/http/routes/models.routes';
import type { Infrastructure } from './infrastructure';
import type { Services } from './services';

const VERSION = '0.1.0';

export const openApiDocument = () => buildOpenApiDocument(allOperations, VERSION);

/** Handlers of every operation, by operationId. Each area adds its route module here. */
export function buildHandlers(infra: Infrastructure, services: Services): HandlerMap {
  let doc: unknown;
  return {
    ...platformRoutes({ billing: services.billing, openApiDocument: () => (doc ??= openApiDocument()) }),
    ...modelRoutes(services.catalogue),
    ...identityRoutes({
      identity: services.identity,
      organizations: services.organizations,
      apiKeys: services.apiKeys,
      google: infra.google,
      // Getters: with PORT=0 these URLs are completed once the gateway is listening (app/platform.ts).
      get publicUrl() {
        return infra.config.publicUrl;
      },
      get appUrl() {
        return infra.config.appUrl;
      },
    }),
  };
}
