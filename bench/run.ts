/**
 * Runs every bench/*.bench.ts (or those named on the command line) one after another in its own process,
 * so one benchmark's memory and JIT state do not colour the next. Each writes bench/results/<name>.json.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const dir = __dirname;
const wanted = process.argv.slice(2);
const benches = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.includes(w)))
  .sort();

let failed = 0;
for (const file of benches) {
  process.stdout.write(`\n=== ${file}\n`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(dir, file)], { stdio: 'inherit', env: process.env });
  if (run.status !== 0) {
    failed++;
    process.stdout.write(`${file} failed (exit ${run.status})\n`);
  }
}
process.stdout.write(`\n${benches.length - failed} benchmarks ran, ${failed} failed; results in bench/results/\n`);
process.exit(failed ? 1 : 0);
