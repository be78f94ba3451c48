import 'reflect-metadata';

import { Container } from 'inversify';

import type { Infrastructure } from './infrastructure';
import { buildServices, type Services } from './services';

export const INFRASTRUCTURE = Symbol.for('Infrastructure');
export const SERVICES = Symbol.for('Services');

/**
 * The roles' container: the infrastructure and the core use cases' dependency bundles, over the adapters
 * container (every port's token, see app/adapters-container.ts) as its parent.
 */
export function createContainer(infra: Infrastructure): Container {
  const c = new Container({ parent: infra.adapters });
  c.bind(INFRASTRUCTURE).toConstantValue(infra);
  c.bind<Services>(SERVICES)
    .toDynamicValue(() => buildServices(infra))
    .inSingletonScope();
  return c;
}
