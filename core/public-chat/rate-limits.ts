import { DomainError } from '../shared/errors';
import type { PublicChatDeps } from './public-chat-deps';

export type PublicAction = 'chat' | 'uploads';

/**
 * Counts one public chat message or upload against the visitor's and the address's windows (sliding windows in
 * the rate-limit store: in-process or Redis). Over either limit: RATE_LIMITED (429) with the seconds to wait in
 * `details.retryAfterSeconds` (the HTTP edge sends them as Retry-After). Limits never fail open.
 */
export async function enforcePublicRateLimit(
  deps: PublicChatDeps,
  action: PublicAction,
  who: { anonymousId: string; clientIp: string },
): Promise<void> {
  const rule = deps.limits[action];
  const window = deps.limits.windowSeconds;
  const hits = [deps.rateLimits.hit(`public:${action}:visitor:${who.anonymousId}`, rule.perVisitor, window)];
  if (who.clientIp) hits.push(deps.rateLimits.hit(`public:${action}:ip:${who.clientIp}`, rule.perIp, window));
  let decisions;
  try {
    decisions = await Promise.all(hits);
  } catch (e) {
    // The stores fall back to in-process limits themselves; a failure past that is refused, never let through.
    deps.chat.log?.('warn', 'public rate-limit store failed; request refused', e);
    throw new DomainError('RATE_LIMITED', 'Rate limits cannot be checked right now; retry shortly', { retryAfterSeconds: 1 });
  }
  const refused = decisions.filter((d) => !d.allowed);
  if (!refused.length) return;
  const retryAfterSeconds = Math.max(...refused.map((d) => d.retryAfterSeconds), 1);
  const what = action === 'chat' ? 'chat messages' : 'uploads';
  throw new DomainError('RATE_LIMITED', `Too many ${what}; retry after ${retryAfterSeconds} seconds`, { retryAfterSeconds });
}
