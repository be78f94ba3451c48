import type { IncomingMessage, ServerResponse } from 'node:http';

import { type Context, context, propagation, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

import type { Job } from '../../core/ports/job-queue';
import type { SpanAttributes, Tracer } from '../../core/ports/tracer';

export interface TracingOptions {
  /** OTLP/HTTP collector base URL; spans are posted as JSON to `<endpoint>/v1/traces`. */
  endpoint: string;
  serviceName: string;
}

/**
 * OpenTelemetry tracing of one process: spans for the gateway, the api, retrieval, model calls, billing and
 * jobs, exported over OTLP/HTTP in batches. Only built when an endpoint is configured; otherwise nothing of
 * this is wired and the code paths run without spans.
 */
export interface PlatformTracing {
  /** The core port: child spans of the current one. */
  tracer: Tracer;
  /** The gateway's span of one exchange; `fn` runs inside it and gets the headers that carry it upstream. */
  inGatewaySpan(req: IncomingMessage, res: ServerResponse, trustIncoming: boolean, fn: (headers: Record<string, string>) => void): void;
  /** Express middleware: the api's span of one request, continuing the gateway's trace. */
  apiMiddleware(req: IncomingMessage & { route?: { path?: string } }, res: ServerResponse, next: () => void): void;
  /** W3C traceparent of the current span (travels with enqueued jobs). */
  traceparent(): string | undefined;
  /** Runs a job attempt inside a span continuing the trace that enqueued it. */
  inJobSpan<T>(job: Job, fn: () => Promise<T>): Promise<T>;
  /** Exports what is buffered and unregisters the global provider. */
  shutdown(): Promise<void>;
}

const TRACER_NAME = 'agent-platform';

export function createOtelTracing(options: TracingOptions): PlatformTracing {
  const exporter = new OTLPTraceExporter({ url: `${options.endpoint.replace(/\/+$/, '')}/v1/traces` });
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName }),
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 1000 })],
  });
  // Global context manager (AsyncLocalStorage) and W3C propagator: spans follow async work within the process.
  provider.register();
  const tracer = trace.getTracer(TRACER_NAME);

  function inSpan<T>(name: string, attributes: SpanAttributes, fn: () => Promise<T>, parent?: Context, kind = SpanKind.INTERNAL) {
    return tracer.startActiveSpan(name, { kind, attributes: defined(attributes) }, parent ?? context.active(), async (span) => {
      try {
        return await fn();
      } catch (error) {
        failed(span, error);
        throw error;
      } finally {
        span.end();
      }
    });
  }

  function serverSpan(name: string, parent: Context, attributes: SpanAttributes, res: ServerResponse): Span {
    const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes: defined(attributes) }, parent);
    res.once('close', () => {
      span.setAttribute('http.response.status_code', res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
    return span;
  }

  return {
    tracer: { inSpan: (name, attributes, fn) => inSpan(name, attributes, fn) },
    inGatewaySpan(req, res, trustIncoming, fn) {
      const parent = trustIncoming ? propagation.extract(ROOT_CONTEXT, req.headers) : ROOT_CONTEXT;
      const span = serverSpan('gateway.request', parent, { 'http.request.method': req.method, 'url.path': pathOf(req.url) }, res);
      const active = trace.setSpan(parent, span);
      const headers: Record<string, string> = {};
      propagation.inject(active, headers);
      context.with(active, () => fn(headers));
    },
    apiMiddleware(req, res, next) {
      const parent = propagation.extract(ROOT_CONTEXT, req.headers);
      const requestId = req.headers['x-request-id'];
      const span = serverSpan(
        'api.request',
        parent,
        {
          'http.request.method': req.method,
          'url.path': pathOf(req.url),
          'request.id': typeof requestId === 'string' ? requestId : undefined,
        },
        res,
      );
      // The route template is known once a route matched; ids never go into span names or attributes.
      res.once('finish', () => span.setAttribute('http.route', req.route?.path ?? 'unmatched'));
      context.with(trace.setSpan(parent, span), next);
    },
    traceparent() {
      const carrier: Record<string, string> = {};
      propagation.inject(context.active(), carrier);
      return carrier.traceparent;
    },
    inJobSpan(job, fn) {
      const parent = job.metadata?.traceparent
        ? propagation.extract(ROOT_CONTEXT, { traceparent: job.metadata.traceparent })
        : ROOT_CONTEXT;
      return inSpan(
        `job ${job.queue}`,
        { 'job.id': job.id, 'job.queue': job.queue, 'job.attempt': job.attempt },
        fn,
        parent,
        SpanKind.CONSUMER,
      );
    },
    async shutdown() {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

function failed(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

function defined(attributes: SpanAttributes): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(attributes)) if (v !== undefined) out[k] = v;
  return out;
}

/** The path without its query (queries may carry tokens). */
function pathOf(url: string | undefined): string {
  return (url ?? '/').split('?')[0] ?? '/';
}
