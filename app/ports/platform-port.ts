/**
 * How the composition root uses a port registry: the registry (its configuration key, adapters and schema)
 * and how its value is bound in the adapters container under the port's DI token. Bindings are lazy
 * singletons, so an adapter (and its SDK) is created the first time something resolves its token.
 */
import type { Container, ResolutionContext } from 'inversify';

import type { AdapterContext, AdapterDefinition, Settings } from '../../adapters/kit/adapter-definition';
import type { PortRegistry } from '../../adapters/kit/port-registry';

export interface PlatformPort {
  readonly registry: PortRegistry<unknown, AdapterDefinition<unknown>>;
  /** Binds the port's value(s) under its token(s) in `container`. */
  bind(container: Container, settings: Settings, context: AdapterContext): void;
}

/** A port whose token resolves to the one selected adapter. */
export function singleAdapterPort<T>(registry: PortRegistry<T, AdapterDefinition<T>>, token: symbol): PlatformPort {
  return {
    registry,
    bind(container, settings, context) {
      container
        .bind<T>(token)
        .toDynamicValue(async () => (await registry.createOne(settings, context)).instance)
        .inSingletonScope();
    },
  };
}

/** A token derived from another binding (the job queue out of the messaging pair). */
export function bindDerived<S, T>(container: Container, token: symbol, from: symbol, pick: (source: S) => T): void {
  container
    .bind<T>(token)
    .toDynamicValue(async (ctx: ResolutionContext) => pick(await ctx.getAsync<S>(from)))
    .inSingletonScope();
}
