/**
 * What the gateway adds in front of the real backend: the same endpoint (GET /api/auth/me, which reads the
 * user and membership from the embedded store) called directly on the api with pre-signed identity headers,
 * and through the gateway with the user's JWT, alternating in the same run. The load generator (autocannon)
 * runs in a child process; the platform runs as in `npm start` (one process, PGlite).
 *
 *   npx tsx bench/gateway-platform.bench.ts     writes bench/results/gateway-platform.json
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { ScryptPasswordHasher } from '../adapters/crypto/scrypt.password-hasher';
import { startPlatform } from '../app/platform';
import { autocannon as run, mean, type Run } from './support/autocannon';
import { benchConfig } from './support/bench-config';
import { acceptRepeats, benchSession } from './support/bench-session';

const ROOT = path.resolve(__dirname, '..');
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

const autocannon = (url: string, headers: Record<string, string>, seconds: number, connections = CONNECTIONS) =>
  run(url, headers, seconds, connections);

async function main() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ap-bench-'));
  const config = benchConfig(dataDir, { SIGNATURE_MAX_AGE_MS: '60000' });
  // The direct figure replays one pre-signed request, so both paths accept repeated nonces.
  const platform = await startPlatform(config, { passwords: new ScryptPasswordHasher({ N: 1024, r: 8, p: 1 }), nonces: acceptRepeats });
  try {
    const pathname = '/api/auth/me';
    const { gatewayHeaders, directHeaders } = await benchSession(platform.gatewayUrl, config.secrets.internal, pathname);
    await autocannon(`${platform.apiUrl}${pathname}`, directHeaders(), 1); // warm-up
    await autocannon(`${platform.gatewayUrl}${pathname}`, gatewayHeaders, 1);
    const direct: Run[] = [];
    const gateway: Run[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      direct.push(await autocannon(`${platform.apiUrl}${pathname}`, directHeaders(), SECONDS));
      gateway.push(await autocannon(`${platform.gatewayUrl}${pathname}`, gatewayHeaders, SECONDS));
    }
    // One connection: no queueing on the embedded store's single connection, so the latency gap is the gateway's own.
    const directSerial: Run[] = [];
    const gatewaySerial: Run[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      directSerial.push(await autocannon(`${platform.apiUrl}${pathname}`, directHeaders(), SECONDS, 1));
      gatewaySerial.push(await autocannon(`${platform.gatewayUrl}${pathname}`, gatewayHeaders, SECONDS, 1));
    }
    const figures = (runs: Run[]) => ({
      requestsPerSecond: mean(runs, 'requestsPerSecond'),
      p50Ms: mean(runs, 'p50Ms'),
      p99Ms: mean(runs, 'p99Ms'),
      non2xx: mean(runs, 'non2xx'),
      runs,
    });
    const d = figures(direct);
    const g = figures(gateway);
    const result = {
      date: new Date().toISOString(),
      node: process.version,
      cpus: os.cpus().length,
      endpoint: `GET ${pathname}`,
      connections: CONNECTIONS,
      secondsPerRun: SECONDS,
      rounds: ROUNDS,
      direct: d,
      gateway: g,
      ratios: { throughputRatio: g.requestsPerSecond / d.requestsPerSecond, addedP50Ms: g.p50Ms - d.p50Ms, addedP99Ms: g.p99Ms - d.p99Ms },
      oneConnection: {
        direct: figures(directSerial),
        gateway: figures(gatewaySerial),
        addedP50Ms: mean(gatewaySerial, 'p50Ms') - mean(directSerial, 'p50Ms'),
        addedP99Ms: mean(gatewaySerial, 'p99Ms') - mean(directSerial, 'p99Ms'),
        throughputRatio: mean(gatewaySerial, 'requestsPerSecond') / mean(directSerial, 'requestsPerSecond'),
      },
      targets: { minThroughputRatio: 0.8, maxAddedP50Ms: 1 },
      note: 'autocannon latency has 1 ms resolution; the gateway and the api share this process and its two cores, as in `npm start`.',
    };
    await mkdir(path.join(ROOT, 'bench/results'), { recursive: true });
    await writeFile(path.join(ROOT, 'bench/results/gateway-platform.json'), `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(
      `${JSON.stringify({ direct: { rps: d.requestsPerSecond, p50: d.p50Ms, p99: d.p99Ms, non2xx: d.non2xx }, gateway: { rps: g.requestsPerSecond, p50: g.p50Ms, p99: g.p99Ms, non2xx: g.non2xx }, ratios: result.ratios, oneConnection: { addedP50Ms: result.oneConnection.addedP50Ms, throughputRatio: result.oneConnection.throughputRatio } })}\n`,
    );
  } finally {
    await platform.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
