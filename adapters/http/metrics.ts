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
  return {
    registry,
    observe(req, res, next) {
      const end = duration.startTimer();
      res.once('finish', () => {
        const route = (req.route as { path?: string } | undefined)?.path ?? 'unmatched';
        end({ method: req.method, route, status: String(res.statusCode) });
      });
      next();
    },
  };
}
