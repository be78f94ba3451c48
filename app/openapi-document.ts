import { allOperations } from '../contracts';
import { buildOpenApiDocument } from '../contracts/openapi';
import { createPluginRegistries } from '../plugins';
import type { Infrastructure } from './infrastructure';

export const API_VERSION = '0.1.0';

/** The document /api/openapi.json serves: every operation, with the plugin types registered at boot. */
export const openApiDocument = (infra: Pick<Infrastructure, 'plugins'>) =>
  buildOpenApiDocument(allOperations(infra.plugins.catalogue()), API_VERSION);

/**
 * The same document built without booting anything: the built-in plugins only (npm plugin packages named in
 * PLUGINS are left out). The SDK's types are generated from it.
 */
export const builtInOpenApiDocument = () => openApiDocument({ plugins: createPluginRegistries() });
