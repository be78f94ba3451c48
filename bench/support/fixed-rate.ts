/**
 * An open-loop load generator at a fixed rate, in a child process (it must not share the measured process's
 * event loop). Unlike autocannon (closed loop: a slow answer delays the next request), request i leaves at
 * start + i/rate whatever the answers before it, as webhook deliveries do; latency is measured from that
 * scheduled time, so queueing in front of a slow server counts (no coordinated omission).
 *
 *   node --import tsx bench/support/fixed-rate.ts <requests.json>   prints the figures as JSON
 *
 * requests.json: { baseUrl, rate, requests: [{ method, path, headers, body? }] }, sent in order, one each.
 */
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';

import { summary } from './latency';

export interface FixedRateRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface FixedRateFigures {
  rate: number;
  sent: number;
  statuses: Record<string, number>;
  errors: number;
  latency: ReturnType<typeof summary> & { maxMs: number };
  /** How late the generator itself sent (its own event loop): should stay near zero. */
  sendLagP99Ms: number;
}

/** Runs the generator in a child process and resolves with its figures. */
export function fixedRate(file: string): Promise<FixedRateFigures> {
  return new Promise((resolve, reject) => {
    const child = fork(__filename, [file], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
    let out = '';
    child.stdout?.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(out) as FixedRateFigures) : reject(new Error(`fixed-rate exited ${code}`)),
    );
  });
}

async function generate(file: string) {
  const spec = JSON.parse(readFileSync(file, 'utf8')) as { baseUrl: string; rate: number; requests: FixedRateRequest[] };
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const url = new URL(spec.baseUrl);
  const latencies: number[] = [];
  const lags: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  const start = performance.now() + 50;
  const sendOne = (r: FixedRateRequest, scheduled: number) =>
    new Promise<void>((done) => {
      lags.push(performance.now() - scheduled);
      const req = http.request({ host: url.hostname, port: url.port, method: r.method, path: r.path, headers: r.headers, agent }, (res) => {
        res.resume();
        res.on('end', () => {
          latencies.push(performance.now() - scheduled);
          statuses[res.statusCode ?? 0] = (statuses[res.statusCode ?? 0] ?? 0) + 1;
          done();
        });
      });
      req.on('error', () => {
        errors++;
        done();
      });
      req.end(r.body);
    });
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < spec.requests.length; i++) {
    const scheduled = start + (i * 1000) / spec.rate;
    const wait = scheduled - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait - 1));
    while (performance.now() < scheduled); // the last millisecond busy-waits: timers are coarse
    inFlight.push(sendOne(spec.requests[i], scheduled));
  }
  await Promise.all(inFlight);
  agent.destroy();
  const figures: FixedRateFigures = {
    rate: spec.rate,
    sent: spec.requests.length,
    statuses,
    errors,
    latency: { ...summary(latencies), maxMs: +Math.max(...latencies).toFixed(3) },
    sendLagP99Ms: summary(lags).p99Ms,
  };
  process.stdout.write(JSON.stringify(figures));
}

if (require.main === module)
  generate(process.argv[2]).catch((e) => {
    console.error(e);
    process.exit(1);
  });
