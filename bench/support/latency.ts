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
