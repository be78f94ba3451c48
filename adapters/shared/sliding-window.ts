import type { RateLimitDecision } from '../../core/ports/rate-limit-store';

/*
 * The sliding-window approximation every rate-limit store answers with (the one Cloudflare and others use):
 * windows are aligned to the clock; a hit is allowed when `previous × (1 − elapsed fraction) + current ≤ limit`.
 * The stores differ only in where they keep the two counts.
 */

/** Where `now` falls among the clock-aligned windows of one length: the window's number and how far into it. */
export interface WindowPosition {
  windowMs: number;
  now: number;
  index: number;
  fraction: number;
}

export function windowAt(now: number, windowSeconds: number): WindowPosition {
  const windowMs = Math.max(1, Math.round(windowSeconds * 1000));
  const index = Math.floor(now / windowMs);
  return { windowMs, now, index, fraction: (now - index * windowMs) / windowMs };
}

/**
 * The answer to a hit once it is counted (`current` includes its `cost`): allowed while
 * `previous × (1 − elapsed fraction) + current ≤ limit`; a refused hit is to be given back by the caller.
 */
export function hitDecision(limit: number, previous: number, current: number, w: WindowPosition, cost = 1): RateLimitDecision {
  const estimate = previous * (1 - w.fraction) + current;
  if (estimate <= limit) return { allowed: true, limit, remaining: Math.max(0, Math.floor(limit - estimate)), retryAfterSeconds: 0 };
  return refusal(limit, previous, current - cost, w);
}

/** A hit's cost as the stores count it: a positive whole number (1 when absent or not a number). */
export const hitCost = (cost: number | undefined) => (cost === undefined || !Number.isFinite(cost) ? 1 : Math.max(1, Math.ceil(cost)));

/** What a hit would get with these counts, none of them its own. */
export function peekDecision(limit: number, previous: number, current: number, w: WindowPosition): RateLimitDecision {
  const estimate = previous * (1 - w.fraction) + current + 1;
  if (estimate <= limit) return { allowed: true, limit, remaining: Math.max(0, Math.floor(limit - estimate + 1)), retryAfterSeconds: 0 };
  return refusal(limit, previous, current, w);
}

/** Earliest moment one more hit fits: later in this window as the previous one fades, or in the next one. */
function refusal(limit: number, previous: number, current: number, w: WindowPosition): RateLimitDecision {
  let at: number;
  const room = limit - current - 1;
  if (previous > 0 && room >= 0) {
    at = w.index * w.windowMs + w.windowMs * (1 - room / previous);
  } else {
    const fraction = current <= limit - 1 ? 0 : 1 - (limit - 1) / current;
    at = (w.index + 1) * w.windowMs + w.windowMs * fraction;
  }
  return { allowed: false, limit, remaining: 0, retryAfterSeconds: Math.max(1, Math.ceil((at - w.now) / 1000)) };
}
