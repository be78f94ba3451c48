/**
 * The gateway reads the database for API keys (`verifyApiKey`) and for the user an external issuer's token maps
 * to (`externalAccessClaims`). When that read fails because the database cannot be reached, the answer is the
 * api's: 503 `DATABASE_UNAVAILABLE` with Retry-After (docs/contracts.md "Delivery guarantees"), not a bare 503 or 500.
 * The failures are the real error node-postgres gives for a connect to a closed port.
 */
import net from 'node:net';

import pg from 'pg';

import { isDatabaseUnavailable } from '../adapters/postgres/database-errors';
import { call } from './testing/fake-upstream';
import { API_KEY, type GatewayFixture, startGatewayFixture } from './testing/gateway-fixture';

let fx: GatewayFixture;
let refused: Error;
/** What the stores reject with: the database away, or something else (a verifier's own failure). */
let failure: () => Error;

beforeAll(async () => {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  refused = await new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` }).connect().then(
    () => {
      throw new Error('connected to a closed port');
    },
    (e: Error) => e,
  );
  fx = await startGatewayFixture({
    verifyApiKey: async () => {
      throw failure();
    },
    externalAccessClaims: async () => {
      throw failure();
    },
    isDatabaseUnavailable,
  });
});
afterAll(() => fx.close());

describe('gateway: the database unreachable while credentials are checked', () => {
  beforeEach(() => {
    failure = () => refused;
  });

  it('an API key: 503 DATABASE_UNAVAILABLE with Retry-After', async () => {
    const r = await call(fx.port, { path: '/v1/agents', headers: { authorization: `Bearer ${API_KEY}` } });
    expect(r.status).toBe(503);
    expect(r.headers['retry-after']).toBe('2');
    expect(r.json).toEqual({
      error: 'Service Unavailable',
      message: 'The database is unavailable; try again shortly',
      code: 'DATABASE_UNAVAILABLE',
    });
    expect(fx.upstream.received).toHaveLength(0);
  });

  it('an API key on an OpenAI-compatible path: the same, in OpenAI shape', async () => {
    const r = await call(fx.port, {
      method: 'POST',
      path: '/v1/chat/completions',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(r.status).toBe(503);
    expect(r.headers['retry-after']).toBe('2');
    expect(r.json.error).toMatchObject({ type: 'server_error', code: 'database_unavailable' });
  });

  it('a bearer token of an external issuer whose user cannot be looked up: 503 DATABASE_UNAVAILABLE', async () => {
    const r = await call(fx.port, { path: '/api/bots', headers: { authorization: 'Bearer not.a-platform.token' } });
    expect(r.status).toBe(503);
    expect(r.headers['retry-after']).toBe('2');
    expect(r.json).toMatchObject({ code: 'DATABASE_UNAVAILABLE' });
  });

  it('other failures of a check keep their own 503', async () => {
    failure = () => new Error('the issuer keys could not be fetched');
    const key = await call(fx.port, { path: '/v1/agents', headers: { authorization: `Bearer ${API_KEY}` } });
    const token = await call(fx.port, { path: '/api/bots', headers: { authorization: 'Bearer not.a-platform.token' } });
    for (const r of [key, token]) {
      expect(r.status).toBe(503);
      expect(r.json.code).toBe('SERVICE_UNAVAILABLE');
    }
  });
});
