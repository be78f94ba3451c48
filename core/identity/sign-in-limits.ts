import type { RateLimitStore } from '../ports/rate-limit-store';
import { DomainError } from '../shared/errors';

export interface SignInLimitSettings {
  /** Failed sign-ins per account per window; past it the account is locked for the window (even with the right password). */
  failuresPerAccount: number;
  /** Failed sign-ins per client address per window. */
  failuresPerIp: number;
  windowSeconds: number;
  registrationsPerIp: number;
  registrationWindowSeconds: number;
}

export interface SignInLimits {
  store: RateLimitStore;
  settings: SignInLimitSettings;
}

const accountKey = (email: string) => `signin:account:${email.trim().toLowerCase()}`;
const ipKey = (ip: string) => `signin:ip:${ip}`;

function refuse(message: string, retryAfterSeconds: number): never {
  throw new DomainError('RATE_LIMITED', `${message}; retry after ${retryAfterSeconds} seconds`, { retryAfterSeconds });
}

/** Before checking a password: refused (429) while the account or the address is locked. */
export async function assertSignInAllowed(limits: SignInLimits | undefined, email: string, ip: string | null): Promise<void> {
  if (!limits) return;
  const { store, settings: s } = limits;
  const [account, address] = await Promise.all([
    store.peek(accountKey(email), s.failuresPerAccount, s.windowSeconds),
    ip ? store.peek(ipKey(ip), s.failuresPerIp, s.windowSeconds) : null,
  ]);
  if (!account.allowed) refuse('Too many failed sign-ins for this account', account.retryAfterSeconds);
  if (address && !address.allowed) refuse('Too many failed sign-ins from this address', address.retryAfterSeconds);
}

/** Counts a failed sign-in against the account and the address. */
export async function recordSignInFailure(limits: SignInLimits | undefined, email: string, ip: string | null): Promise<void> {
  if (!limits) return;
  const { store, settings: s } = limits;
  await Promise.all([
    store.hit(accountKey(email), s.failuresPerAccount, s.windowSeconds),
    ip ? store.hit(ipKey(ip), s.failuresPerIp, s.windowSeconds) : null,
  ]);
}

/** A successful sign-in clears the account's failures (the address keeps its count). */
export async function recordSignInSuccess(limits: SignInLimits | undefined, email: string): Promise<void> {
  if (!limits) return;
  await limits.store.reset(accountKey(email), limits.settings.windowSeconds);
}

/** Counts one registration from the address; 429 past the limit. */
export async function assertRegistrationAllowed(limits: SignInLimits | undefined, ip: string | null): Promise<void> {
  if (!limits || !ip) return;
  const { store, settings: s } = limits;
  const d = await store.hit(`signup:ip:${ip}`, s.registrationsPerIp, s.registrationWindowSeconds);
  if (!d.allowed) refuse('Too many registrations from this address', d.retryAfterSeconds);
}
