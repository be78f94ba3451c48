import { DomainError, isDomainError, PROVIDER_LIMIT_MESSAGE } from '../shared/errors';

/** Provider credit or token limits reach the user as the spec's message; other codes pass through. */
export function toChatError(e: unknown): unknown {
  if (isDomainError(e) && e.code === 'PROVIDER_LIMIT_REACHED') {
    const err = new DomainError('PROVIDER_LIMIT_REACHED', PROVIDER_LIMIT_MESSAGE, e.details);
    err.cause = e;
    return err;
  }
  return e;
}
