import type { DomainError } from '../../core/shared/errors';
import { SsrfGuardedFetcher } from './ssrf-guarded.fetcher';
import { fakeResolver, type FixtureServer, startServer, v4 } from './test-fixtures';

/** `allowHosts` (SSO_ALLOWED_HOSTS): named internal hosts the identity flow's fetcher reaches, and nothing more. */
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: unknown) => e as DomainError,
  );

describe('SsrfGuardedFetcher: allowHosts', () => {
  let server: FixtureServer;
  const resolver = fakeResolver({ 'idp.internal': v4('127.0.0.1'), 'other.internal': v4('127.0.0.1') });

  beforeAll(async () => {
    server = await startServer((_req, res) => res.end('ok'));
  });
  afterAll(() => server.close());

  it('reaches a named host on the named port, whatever it resolves to', async () => {
    const fetcher = new SsrfGuardedFetcher({ lookup: resolver.lookup, allowHosts: [`IDP.internal:${server.port}`] });
    const r = await fetcher.fetch({ url: `http://idp.internal:${server.port}/.well-known/openid-configuration` });
    expect(r.status).toBe(200);
    expect(r.body.toString()).toBe('ok');
  });

  it('names IP literals in any notation', async () => {
    const fetcher = new SsrfGuardedFetcher({ lookup: resolver.lookup, allowHosts: [`127.0.0.1:${server.port}`] });
    expect((await fetcher.fetch({ url: `http://2130706433:${server.port}/` })).status).toBe(200);
  });

  it.each([
    ['another internal host', (port: number) => `http://other.internal:${port}/`],
    ['another port of the named host', (port: number) => `http://idp.internal:${port + 1}/`],
  ])('still refuses %s', async (_label, url) => {
    const fetcher = new SsrfGuardedFetcher({ lookup: resolver.lookup, allowHosts: [`idp.internal:${server.port}`] });
    const e = await failure(fetcher.fetch({ url: url(server.port) }));
    expect(e?.code).toBe('UNSUPPORTED_URL');
  });

  it('without a port, allows only the scheme’s default port', async () => {
    const fetcher = new SsrfGuardedFetcher({ lookup: resolver.lookup, allowHosts: ['idp.internal'] });
    expect((await failure(fetcher.fetch({ url: `http://idp.internal:${server.port}/` })))?.code).toBe('UNSUPPORTED_URL');
  });

  it.each(['idp.internal:0', 'idp.internal:70000', 'a/b', 'http://idp.internal', ''])('refuses the entry %j at construction', (entry) => {
    expect(() => new SsrfGuardedFetcher({ allowHosts: [entry] })).toThrow(/invalid allowed host/);
  });
});
