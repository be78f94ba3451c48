import { type AdapterDefinition, defineAdapter } from './adapter-definition';

/** The `none` choice of an optional capability (rerank, vision...): the port's value is null. */
export const disabledAdapter = <T>(description: string): AdapterDefinition<T | null> =>
  defineAdapter<T | null>({ id: 'none', description, selectedWhen: [], create: () => Promise.resolve(null) });
