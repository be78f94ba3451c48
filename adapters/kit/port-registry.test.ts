import { type AdapterDefinition, defineAdapter } from './adapter-definition';
import { definePort, mergeSettingSchemas } from './port-registry';

interface Store {
  name: string;
}
const context = { dataDir: '/tmp', log: () => undefined, db: undefined as never };

function adapter(id: string, extra: Partial<AdapterDefinition<Store>> = {}, created: string[] = []) {
  return defineAdapter<Store>({
    id,
    description: `${id} store`,
    create: (settings) => {
      created.push(id);
      return Promise.resolve({ name: `${id}:${String(settings.URL ?? '')}` });
    },
    ...extra,
  });
}

describe('port registry', () => {
  it('selects the named adapter, else the first whose keys are set, else the default', async () => {
    const created: string[] = [];
    const port = definePort<Store>({
      key: 'STORE',
      description: 'Store',
      adapters: [
        adapter('remote', { settings: { URL: { type: 'string' } }, requires: ['URL'], selectedWhen: ['URL'] }, created),
        adapter('memory', { selectedWhen: [] }, created),
      ],
    });
    expect(port.select({}).ids).toEqual(['memory']);
    expect(port.select({ URL: 'x://a' }).ids).toEqual(['remote']);
    expect(port.select({ URL: 'x://a', STORE: 'memory' }).ids).toEqual(['memory']);
    expect((await port.createOne({ URL: 'x://a' }, context)).instance).toEqual({ name: 'remote:x://a' });
    // Only the selected adapter's factory ran: the others' SDKs stay unloaded.
    expect(created).toEqual(['remote']);
  });

  it('reports unknown ids with the known ones and keys the selected adapter requires', () => {
    const port = definePort<Store>({
      key: 'STORE',
      description: 'Store',
      adapters: [adapter('remote', { settings: { URL: { type: 'string' } }, requires: ['URL'] }), adapter('memory', { selectedWhen: [] })],
    });
    expect(port.select({ STORE: 'disk' }).problems).toEqual(['STORE: unknown "disk" (known: remote, memory)']);
    expect(port.select({ STORE: 'remote' }).problems).toEqual(['URL: required when STORE is remote']);
    expect(port.schemaProperties()).toEqual({
      STORE: { type: 'string', enum: ['remote', 'memory'], description: 'Store: one of remote, memory' },
      URL: { type: 'string' },
    });
  });

  it('selects several adapters of a list port, in the order named or registered', () => {
    const port = definePort<Store>({
      key: 'PROVIDERS',
      description: 'Providers',
      multiple: true,
      adapters: [
        adapter('local', { selectedWhen: [] }),
        adapter('paid', { settings: { KEY: { type: 'string' } }, selectedWhen: ['KEY'] }),
        adapter('extra'),
      ],
    });
    expect(port.select({}).ids).toEqual(['local']);
    expect(port.select({ KEY: 'k' }).ids).toEqual(['local', 'paid']);
    expect(port.select({ PROVIDERS: 'extra, local,extra' }).ids).toEqual(['extra', 'local']);
    expect(port.select({ PROVIDERS: 'local,nope' }).problems).toEqual(['PROVIDERS: unknown "nope" (known: local, paid, extra)']);
  });

  it('refuses malformed declarations when the port is defined', () => {
    const define = (adapters: AdapterDefinition<Store>[], multiple = false) =>
      definePort<Store>({ key: 'STORE', description: 'Store', adapters, multiple });
    expect(() => define([adapter('a', { selectedWhen: [] }), adapter('a')])).toThrow(/registered twice/);
    expect(() => define([adapter('Bad Id', { selectedWhen: [] })])).toThrow(/must match/);
    expect(() => define([adapter('a')])).toThrow(/needs a default/);
    expect(() => define([adapter('a', { selectedWhen: [], requires: ['URL'] })])).toThrow(/names URL without declaring it/);
    expect(() => definePort<Store>({ key: 'store', description: 'x', adapters: [adapter('a', { selectedWhen: [] })] })).toThrow(
      /upper-case/,
    );
    expect(() => define([], true)).toThrow(/has no adapter/);
  });

  it('merges a key shared by adapters only when they declare it alike', () => {
    expect(mergeSettingSchemas([{ A: { type: 'string', format: 'uri' } }, { A: { format: 'uri', type: 'string' } }])).toEqual({
      A: { type: 'string', format: 'uri' },
    });
    expect(() => mergeSettingSchemas([{ A: { type: 'string' } }, { A: { type: 'integer' } }])).toThrow(/declared twice/);
  });
});
