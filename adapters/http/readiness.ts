const CHECK_TIMEOUT_MS = 2000;

/** Runs every dependency check at once, each bounded in time; ready only when all answer. */
export async function readinessOf(checks: Record<string, () => Promise<unknown>>) {
  const results = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS);
      });
      try {
        await Promise.race([check(), timeout]);
        return [name, 'ok'] as const;
      } catch {
        return [name, 'unavailable'] as const;
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return { ready: results.every(([, s]) => s === 'ok'), checks: Object.fromEntries(results) };
}

/**
 * A readiness check that fails once shutdown has begun (`stopping()`): `/ready` answers 503 from the first moment of
 * SIGTERM on, so that a load balancer stops sending work here while in-flight requests finish.
 */
export function notShuttingDown(stopping: () => boolean): () => Promise<void> {
  return () => (stopping() ? Promise.reject(new Error('shutting down')) : Promise.resolve());
}
