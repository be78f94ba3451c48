import { Counter, Registry } from 'prom-client';

import { startMetricsServer } from './metrics-server';

describe('metrics server of the gateway and worker roles', () => {
  it('serves process metrics and the given series at /metrics, and nothing else', async () => {
    const registry = new Registry();
    const jobs = new Counter({ name: 'jobs_total', help: 'test', labelNames: ['queue', 'outcome'], registers: [registry] });
    jobs.inc({ queue: 'knowledge.ingest', outcome: 'completed' }, 3);
    const server = await startMetricsServer([registry], 0, '127.0.0.1');
    try {
      const base = `http://127.0.0.1:${server.address.port}`;
      const res = await fetch(`${base}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/plain');
      const text = await res.text();
      expect(text).toContain('jobs_total{queue="knowledge.ingest",outcome="completed"} 3');
      expect(text).toContain('process_cpu_user_seconds_total');
      expect((await fetch(`${base}/anything-else`)).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});
