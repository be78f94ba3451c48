/**
 * Pipelines report best effort (a reporting hiccup never fails the work), but a lost terminal report would leave
 * the job running for ever and its webhook never recorded: terminal reports (complete, fail) are retried with
 * backoff before the reporter gives up and logs. Progress ticks stay single-shot (the next one catches up).
 */
export async function retryReport<T>(call: () => Promise<T>, attempts = 4, firstDelayMs = 250): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, firstDelayMs * 2 ** (attempt - 1)));
    }
  }
}
