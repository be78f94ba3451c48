/** autocannon in a child process, so the load generator does not share the measured process's event loop. */
import { spawn } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

export interface Run {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  non2xx: number;
}

/** One load run against `url`; resolves with autocannon's averages and latency percentiles. */
export function autocannon(url: string, headers: Record<string, string>, seconds: number, connections = 4): Promise<Run> {
  const args = [path.join(ROOT, 'node_modules/autocannon/autocannon.js'), '-c', String(connections), '-d', String(seconds), '-j'];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}=${v}`);
  args.push(url);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`autocannon failed: ${err}`));
      const r = JSON.parse(out) as { requests: { average: number }; latency: { p50: number; p99: number; max: number }; non2xx: number };
      resolve({
        requestsPerSecond: r.requests.average,
        p50Ms: r.latency.p50,
        p99Ms: r.latency.p99,
        maxMs: r.latency.max,
        non2xx: r.non2xx,
      });
    });
  });
}

export const mean = (runs: Run[], k: keyof Run) => runs.reduce((s, r) => s + r[k], 0) / runs.length;
