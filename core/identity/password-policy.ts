import type { CommonPasswordList } from '../ports/common-password-list';
import { DomainError } from '../shared/errors';

export interface PasswordPolicy {
  minLength: number;
  common: CommonPasswordList | null;
}

/** Fewer distinct characters than this (`aaaaaaaa`, `abababab`) is a pattern, not a password. */
const MIN_DISTINCT_CHARACTERS = 3;

/**
 * NIST SP 800-63B style: a minimum length and no password from a list of common ones; no composition rules.
 * Refusals are 400 Validation Error naming the rule.
 */
export function assertAcceptablePassword(policy: PasswordPolicy | undefined, password: string, field = 'password'): void {
  const minLength = policy?.minLength ?? 8;
  const fail = (message: string) => {
    throw new DomainError('VALIDATION', `${field} ${message}`, [{ field, message }]);
  };
  if ([...password].length < minLength) fail(`must be at least ${minLength} characters long`);
  if (new Set(password).size < MIN_DISTINCT_CHARACTERS) fail('is too simple: use more than a repeated character or two');
  if (policy?.common?.includes(password)) fail('is one of the most common passwords; choose another');
}
