/**
 * The production shape for the auth/me bench: the roles in their own processes, as docker-compose and the Helm
 * chart run them (test/support/split-stack.ts: Postgres server, Redis for rate limits and nonces, RabbitMQ for
 * the queue and the event bus the identity cache needs across processes), loaded through the gateway.
 */
import { startSplitStack } from '../../test/support/split-stack';
import { autocannon, mean, type Run } from './autocannon';

export interface SplitRoles {
  rssAfterBootMb: Record<string, number>;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  /** CPU time of each role's process per answered request. */
  cpuMicrosPerRequest: { api: number; gateway: number };
}

export async function splitRolesFigures(pathname: string, seconds: number, connections: number, rounds: number): Promise<SplitRoles> {
  const stack = await startSplitStack();
  try {
    const rssAfterBootMb = stack.rssMb();
    const reg = await fetch(`${stack.gatewayUrl}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bench-split@example.com', password: 'bench-password-1' }),
    });
    const token = ((await reg.json()) as { data: { accessToken: string } }).data.accessToken;
    const url = `${stack.gatewayUrl}${pathname}`;
    const headers = { authorization: `Bearer ${token}` };
    await autocannon(url, headers, 2, connections); // warm-up
    const cpu0 = stack.cpuSeconds();
    const runs: Run[] = [];
    for (let i = 0; i < rounds; i++) runs.push(await autocannon(url, headers, seconds, connections));
    const cpu = stack.cpuSeconds();
    const answered = Math.max(
      1,
      runs.reduce((n, r) => n + r.requestsPerSecond * seconds, 0),
    );
    const perRequest = (role: string) => ((cpu[role]! - cpu0[role]!) * 1e6) / answered;
    return {
      rssAfterBootMb,
      requestsPerSecond: mean(runs, 'requestsPerSecond'),
      p50Ms: mean(runs, 'p50Ms'),
      p99Ms: mean(runs, 'p99Ms'),
      non2xx: mean(runs, 'non2xx'),
      cpuMicrosPerRequest: { api: perRequest('api'), gateway: perRequest('gateway') },
    };
  } finally {
    await stack.close();
  }
}
