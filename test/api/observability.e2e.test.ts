import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { registerUser } from '../support/users';

let p: TestPlatform;
beforeAll(async () => {
  p = await startTestPlatform();
}, BOOT_TIMEOUT_MS);
afterAll(() => p?.close(), BOOT_TIMEOUT_MS);

/** Parses the Prometheus text exposition format strictly enough to catch a malformed line. */
function parseExposition(text: string) {
  const samples: { name: string; labels: Record<string, string>; value: number }[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (!line) continue;
    const meta = /^# (HELP|TYPE) ([a-zA-Z_:][\w:]*) (.*)$/.exec(line);
    if (meta) {
      if (meta[1] === 'TYPE') types.set(meta[2]!, meta[3]!);
      continue;
    }
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (-?[\d.e+-]+|NaN|\+Inf|-Inf)(?: \d+)?$/.exec(line);
    if (!m) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return { samples, types };
}

describe('operator endpoints', () => {
  it('serves Prometheus metrics on the api with latency per route template', async () => {
    const user = await registerUser(p.http, { label: 'metrics' });
    for (let i = 0; i < 3; i++) expect((await p.http.get('/api/auth/me', { token: user.accessToken })).status).toBe(200);
    const res = await fetch(`${p.apiUrl}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const { samples, types } = parseExposition(await res.text());
    expect(types.get('http_request_duration_seconds')).toBe('histogram');
    const me = samples.find(
      (s) => s.name === 'http_request_duration_seconds_count' && s.labels.route === '/api/auth/me' && s.labels.status === '200',
    );
    expect(me?.value).toBeGreaterThanOrEqual(3);
    expect(samples.some((s) => s.name === 'process_resident_memory_bytes')).toBe(true);
  });

  it('keeps /metrics off the public gateway', async () => {
    const r = await p.http.get('/metrics');
    expect(r.status).toBe(404);
    expect(r.text).not.toContain('http_request_duration_seconds');
  });

  it('answers liveness and readiness with the state of the database', async () => {
    expect((await p.http.get('/health')).status).toBe(200);
    const ready = await fetch(`${p.apiUrl}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { database: 'ok', serving: 'ok' } });
  });
});

describe('readiness checks', () => {
  it('is not ready while one dependency fails or hangs, and names it', async () => {
    const { readinessOf } = await import('../../adapters/http/readiness');
    const r = await readinessOf({
      database: async () => 1,
      queue: () => Promise.reject(new Error('down')),
      cache: () => new Promise(() => {}),
    });
    expect(r).toEqual({ ready: false, checks: { database: 'ok', queue: 'unavailable', cache: 'unavailable' } });
  });
});
