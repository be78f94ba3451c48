import type { RateLimitStore } from '../core/ports/rate-limit-store';
import { ipRateLimitKey } from './client-ip';
import { call } from './testing/fake-upstream';
import { accessClaims, API_KEY, type GatewayFixture, startGatewayFixture } from './testing/gateway-fixture';

const fixtures: GatewayFixture[] = [];
afterEach(async () => {
  await Promise.all(fixtures.splice(0).map((f) => f.close()));
});
async function start(...args: Parameters<typeof startGatewayFixture>) {
  const f = await startGatewayFixture(...args);
  fixtures.push(f);
  return f;
}

describe('per-IP limit', () => {
  it('answers 429 with Retry-After in whole seconds once an address spends its budget, on every lane', async () => {
    const fx = await start({ limits: { perIp: { limit: 3, windowSeconds: 60 }, perPrincipal: { limit: 100, windowSeconds: 60 } } });
    const ok = await call(fx.port, { path: '/health' });
    expect(ok.status).toBe(200);
    expect(ok.headers['ratelimit-limit']).toBe('3');
    expect(ok.headers['ratelimit-remaining']).toBe('2');
    await call(fx.port, { path: '/api/public/agents/x' });
    await call(fx.port, { path: '/v1/contacts/export', headers: { authorization: `Bearer ${API_KEY}` } });
    fx.clock.ms += 10_000;
    for (const path of ['/health', '/api/bots', '/v1/contacts/export', '/api/public/agents/x']) {
      const r = await call(fx.port, { path });
      expect(r.status).toBe(429);
      expect(r.json).toEqual({ error: 'rate limited', message: expect.any(String), code: 'RATE_LIMITED' });
      // sliding window: 3 hits in the first window fade enough for a 4th 20 s into the next one (t = 80 s)
      expect(r.headers['retry-after']).toBe('70');
      expect(r.headers['ratelimit-remaining']).toBe('0');
    }
    fx.clock.ms += 50_000; // a fixed window would have reset here
    expect((await call(fx.port, { path: '/health' })).status).toBe(429);
    fx.clock.ms += 20_000;
    expect((await call(fx.port, { path: '/health' })).status).toBe(200);
  });

  it('limits before checking credentials, so keys cannot be guessed faster than the limit', async () => {
    const fx = await start({ limits: { perIp: { limit: 2, windowSeconds: 60 }, perPrincipal: { limit: 100, windowSeconds: 60 } } });
    const statuses = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await call(fx.port, { path: '/v1/x', headers: { authorization: `Bearer guess-${i}` } })).status);
    expect(statuses).toEqual([401, 401, 429, 429]);
  });

  it('ignores X-Forwarded-For unless trustProxy is on', async () => {
    const fx = await start({ limits: { perIp: { limit: 1, windowSeconds: 60 }, perPrincipal: { limit: 100, windowSeconds: 60 } } });
    expect((await call(fx.port, { path: '/health', headers: { 'x-forwarded-for': '1.1.1.1' } })).status).toBe(200);
    const r = await call(fx.port, { path: '/health', headers: { 'x-forwarded-for': '2.2.2.2' } });
    expect(r.status).toBe(429);
  });

  it('with trustProxy, keys by the first X-Forwarded-For hop and forwards it as x-client-ip', async () => {
    const fx = await start({
      trustProxy: true,
      limits: { perIp: { limit: 1, windowSeconds: 60 }, perPrincipal: { limit: 100, windowSeconds: 60 } },
    });
    const a = await call(fx.port, { path: '/health', headers: { 'x-forwarded-for': '203.0.113.7, 10.0.0.1' } });
    expect(a.status).toBe(200);
    expect(a.json.headers['x-client-ip']).toBe('203.0.113.7');
    expect((await call(fx.port, { path: '/health', headers: { 'x-forwarded-for': '203.0.113.7' } })).status).toBe(429);
    expect((await call(fx.port, { path: '/health', headers: { 'x-forwarded-for': '198.51.100.1' } })).status).toBe(200);
    // a malformed first hop falls back to the socket address
    const bad = await call(fx.port, { path: '/health', headers: { 'x-forwarded-for': 'not-an-ip' } });
    expect(bad.json.headers['x-client-ip']).toBe('127.0.0.1');
  });
});

describe('per-principal limit', () => {
  it('limits each user separately, whatever address they come from', async () => {
    const fx = await start({ limits: { perIp: { limit: 100, windowSeconds: 60 }, perPrincipal: { limit: 2, windowSeconds: 30 } } });
    const other = fx.signer.sign(accessClaims({ userId: '11111111-2222-4333-8444-555555555555' }, fx.clock.ms));
    const auth = (t: string) => ({ authorization: `Bearer ${t}` });
    expect((await call(fx.port, { path: '/api/bots', headers: auth(fx.accessToken) })).status).toBe(200);
    const second = await call(fx.port, { path: '/api/public/agents/x', headers: auth(fx.accessToken) });
    expect(second.status).toBe(200);
    expect(second.headers['ratelimit-limit']).toBe('2');
    expect(second.headers['ratelimit-remaining']).toBe('0');
    const third = await call(fx.port, { path: '/api/bots', headers: auth(fx.accessToken) });
    expect(third.status).toBe(429);
    expect(third.headers['retry-after']).toBe('45');
    expect(third.json.error).toBe('rate limited');
    expect((await call(fx.port, { path: '/api/bots', headers: auth(other) })).status).toBe(200);
  });

  it('limits each API key separately', async () => {
    const fx = await start({ limits: { perIp: { limit: 100, windowSeconds: 60 }, perPrincipal: { limit: 1, windowSeconds: 60 } } });
    const auth = { authorization: `Bearer ${API_KEY}` };
    expect((await call(fx.port, { path: '/v1/contacts/export', headers: auth })).status).toBe(200);
    const r = await call(fx.port, { path: '/v1/contacts/export', headers: auth });
    expect(r.status).toBe(429);
    expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // anonymous traffic from the same address is not affected by the key's budget
    expect((await call(fx.port, { path: '/health' })).status).toBe(200);
  });
});

describe('failures around the limits', () => {
  it('never fails open: a store that throws gets 503 (and is reported), nothing reaches the backend', async () => {
    const errors: string[] = [];
    const broken: RateLimitStore = {
      id: 'broken',
      hit: async () => {
        throw new Error('ECONNREFUSED');
      },
      peek: async () => {
        throw new Error('ECONNREFUSED');
      },
      reset: async () => undefined,
      close: async () => undefined,
    };
    const fx = await start({ rateLimitStore: broken, onError: (_e, ctx) => errors.push(ctx) });
    const r = await call(fx.port, { path: '/api/bots', headers: { authorization: `Bearer ${fx.accessToken}` } });
    expect(r.status).toBe(503);
    expect(r.headers['retry-after']).toBe('1');
    expect(r.json).toEqual({ error: 'Service Unavailable', message: expect.any(String), code: 'SERVICE_UNAVAILABLE' });
    expect(errors).toEqual(['rate-limit-store']);
    expect(fx.upstream.received).toHaveLength(0);
  });

  it('answers 503 when API keys cannot be checked', async () => {
    const fx = await start({
      verifyApiKey: async () => {
        throw new Error('db down');
      },
    });
    const r = await call(fx.port, { path: '/v1/contacts/export', headers: { authorization: `Bearer ${API_KEY}` } });
    expect(r.status).toBe(503);
    expect(r.json).toEqual({ error: 'Service Unavailable', message: expect.any(String), code: 'SERVICE_UNAVAILABLE' });
  });
});

describe('ipRateLimitKey', () => {
  it('keys IPv4 by address and IPv6 by /64', () => {
    expect(ipRateLimitKey('203.0.113.7')).toBe('ip:203.0.113.7');
    expect(ipRateLimitKey('2001:db8:1:2:aaaa::1')).toBe(ipRateLimitKey('2001:db8:1:2:ffff::9'));
    expect(ipRateLimitKey('2001:db8:1:2::1')).not.toBe(ipRateLimitKey('2001:db8:1:3::1'));
  });
});
