import 'reflect-metadata';

import { Container } from 'inversify';

import { PASSWORD_HASHER } from '../core/identity/password-hasher';
import { TOKEN_SIGNER } from '../core/identity/token-claims';
import { BLOB_STORE } from '../core/ports/blob-store';
import { CLOCK } from '../core/ports/clock';
import { EVENT_BUS } from '../core/ports/event-bus';
import { ID_GENERATOR } from '../core/ports/id-generator';
import { JOB_QUEUE } from '../core/ports/job-queue';
import { RATE_LIMIT_STORE } from '../core/ports/rate-limit-store';
import { STORE } from '../core/ports/store';
import type { Infrastructure } from './infrastructure';
import { buildServices, type Services } from './services';

export const INFRASTRUCTURE = Symbol.for('Infrastructure');
export const SERVICES = Symbol.for('Services');

/**
 * The composition root: the only place that knows which adapter serves which port. Ports are bound to
 * their DI tokens so roles and tests resolve the same graph.
 */
export function createContainer(infra: Infrastructure): Container {
  const c = new Container();
  c.bind(INFRASTRUCTURE).toConstantValue(infra);
  c.bind(CLOCK).toConstantValue(infra.clock);
  c.bind(ID_GENERATOR).toConstantValue(infra.ids);
  c.bind(STORE).toConstantValue(infra.store);
  c.bind(TOKEN_SIGNER).toConstantValue(infra.tokens);
  c.bind(PASSWORD_HASHER).toConstantValue(infra.passwords);
  c.bind(RATE_LIMIT_STORE).toConstantValue(infra.rateLimits);
  c.bind(JOB_QUEUE).toConstantValue(infra.queue);
  c.bind(EVENT_BUS).toConstantValue(infra.bus);
  c.bind(BLOB_STORE).toConstantValue(infra.blobs);
  c.bind<Services>(SERVICES)
    .toDynamicValue(() => buildServices(infra))
    .inSingletonScope();
  return c;
}
