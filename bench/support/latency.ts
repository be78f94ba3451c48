/** Nearest-rank percentile of `values` (milliseconds). */
export const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

/** Samples, p50, p99 and mean of a list of durations in ms, rounded to microseconds. */
export const summary = (ms: number[]) => ({
  samples: ms.length,
  p50Ms: +percentile(ms, 50).toFixed(3),
  p99Ms: +percentile(ms, 99).toFixed(3),
  meanMs: +(ms.reduce((a, b) => a + b, 0) / ms.length).toFixed(3),
});

/**
 * Runs `f(0..n-1)` one after another: wall time and the process's CPU time per call (p50, p95, mean). When the
 * database (PGlite) and the platform run in this process, CPU time is the work of the call itself and stays
 * comparable when other processes load the machine; wall time does not.
 */
export async function timeEach(n: number, f: (i: number) => Promise<unknown>) {
  return (await timeInterleaved(n, { f })).f;
}

/**
 * Like timeEach for several calls at once, interleaved (for each i: every function in turn), so a change of
 * the machine's load during the run weighs on each of them alike and their ratios stay meaningful.
 */
export async function timeInterleaved<K extends string>(n: number, fs: Record<K, (i: number) => Promise<unknown>>) {
  const keys = Object.keys(fs) as K[];
  const wall = new Map<K, number[]>(keys.map((k) => [k, []]));
  const cpu = new Map<K, number[]>(keys.map((k) => [k, []]));
  for (let i = 0; i < n; i++) {
    for (const k of keys) {
      const t = performance.now();
      const c = process.cpuUsage();
      await fs[k](i);
      const used = process.cpuUsage(c);
      wall.get(k)!.push(performance.now() - t);
      cpu.get(k)!.push((used.user + used.system) / 1000);
    }
  }
  return Object.fromEntries(keys.map((k) => [k, figures(wall.get(k)!, cpu.get(k)!)])) as Record<K, ReturnType<typeof figures>>;
}

function figures(wall: number[], cpu: number[]) {
  const round = (x: number) => Math.round(x * 100) / 100;
  const n = wall.length;
  return {
    p50Ms: round(percentile(wall, 50)),
    p95Ms: round(percentile(wall, 95)),
    meanMs: round(wall.reduce((a, b) => a + b, 0) / n),
    cpuP50Ms: round(percentile(cpu, 50)),
  };
}
