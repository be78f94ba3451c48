import type { NextFunction, Request, Response } from 'express';
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

export interface HttpMetrics {
  registry: Registry;
  /** Middleware: times each answer under its route template (never the raw path: ids would explode the labels). */
  observe(req: Request, res: Response, next: NextFunction): void;
}

/** Prometheus metrics of one api app: process (CPU, memory, event-loop lag, GC) and request latency per route. */
export function createHttpMetrics(): HttpMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method, route template and status (429s are rate-limit refusals)',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  // One child per method, route and status: prom-client otherwise sorts and joins the labels on every answer.
  const series = new Map<string, Histogram.Internal<'method' | 'route' | 'status'>>();
  const seriesOf = (method: string, route: string, status: number) => {
    const key = `${method} ${status} ${route}`;
    let child = series.get(key);
    if (!child) {
      child = duration.labels(method, route, String(status));
      series.set(key, child);
    }
    return child;
  };
  return {
    registry,
    observe(req, res, next) {
      const started = performance.now();
      res.once('finish', () => {
        const route = (req.route as { path?: string } | undefined)?.path ?? 'unmatched';
        seriesOf(req.method, route, res.statusCode).observe((performance.now() - started) / 1000);
      });
      next();
    },
  };
}
