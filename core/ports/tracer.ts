export type SpanAttributes = Record<string, string | number | boolean | undefined>;

/**
 * Spans around the steps a trace should show (billing, for now). The OpenTelemetry adapter makes each a
 * child of the current span; with tracing off the app passes `NO_TRACER`, which only calls `fn`.
 */
export interface Tracer {
  /** Runs `fn` inside a span named `name`; the span ends when `fn` settles and records a thrown error. */
  inSpan<T>(name: string, attributes: SpanAttributes, fn: () => Promise<T>): Promise<T>;
}

export const NO_TRACER: Tracer = { inSpan: (_name, _attributes, fn) => fn() };
