import type { CommonPasswordList } from '../ports/common-password-list';
import { DomainError } from '../shared/errors';

export interface PasswordPolicy {
  minLength: number;
  common: CommonPasswordList | null;
}

/** Fewer distinct characters than this (`aaaaaaaa`, `abababab`) is a pattern, not a password. */
const MIN_DISTINCT_CHARACTERS = 3;

/**
 * Up to this many digits, symbols or spaces around a common password (`password123`, `letmein1`, `!summer2024`)
 * still make a guessable variant of it: cracking rules append years and counters first. More is left alone
 * (`monkey83749201` carries the entropy of its digits).
 */
const MAX_AFFIX = 6;
/** A shorter core (`cat` in `cat!9#2%&8`) is not treated as a dictionary word. */
const MIN_CORE = 4;
const AFFIXED = new RegExp(`^[\\d\\W_]{0,${MAX_AFFIX}}(.+?)[\\d\\W_]{0,${MAX_AFFIX}}$`, 'su');
/** Look-alike substitutions undone (`p@ssw0rd` is `password`); `1` is tried as both `i` and `l`. */
const LEET: Record<string, string> = { '@': 'a', '4': 'a', '3': 'e', '!': 'i', '0': 'o', $: 's', '5': 's', '7': 't', '+': 't' };
const unLeet = (s: string, one: string) => s.replace(/[@43!0$57+1]/g, (c) => (c === '1' ? one : LEET[c]!));

/** The password and the common passwords it may be a variation of, lower-cased. */
function guessableForms(password: string): string[] {
  const lower = password.toLowerCase();
  const core = AFFIXED.exec(lower)?.[1] ?? lower;
  const forms = new Set([lower]);
  for (const candidate of [core, unLeet(lower, 'i'), unLeet(lower, 'l'), unLeet(core, 'i'), unLeet(core, 'l')])
    if ([...candidate].length >= MIN_CORE) forms.add(candidate);
  return [...forms];
}

/**
 * NIST SP 800-63B style: a minimum length and no password from a list of common ones; no composition rules.
 * The list is the whole of zxcvbn-ts's frequency-ranked common-password dictionary by default (~49,000,
 * PASSWORD_COMMON_LIST_SIZE): the 500 most common let `password123` and `letmein1` through. A password is also
 * refused when it is a simple variation of a listed one: a few digits or symbols added at either end, or
 * look-alike characters (`P@ssw0rd2024!`). A zxcvbn strength score would catch more patterns (keyboard walks,
 * dates), but its estimator (@zxcvbn-ts/core) is not a dependency and the list already is; this check is
 * deterministic and explains itself. Refusals are 400 Validation Error naming the rule.
 */
export function assertAcceptablePassword(policy: PasswordPolicy | undefined, password: string, field = 'password'): void {
  const minLength = policy?.minLength ?? 8;
  const fail = (message: string) => {
    throw new DomainError('VALIDATION', `${field} ${message}`, [{ field, message }]);
  };
  if ([...password].length < minLength) fail(`must be at least ${minLength} characters long`);
  if (new Set(password).size < MIN_DISTINCT_CHARACTERS) fail('is too simple: use more than a repeated character or two');
  const common = policy?.common;
  if (!common) return;
  if (common.includes(password)) fail('is one of the most common passwords; choose another');
  if (guessableForms(password).some((form) => common.includes(form)))
    fail('is too easy to guess: it is a common password with a few digits, symbols or look-alike characters changed; choose another');
}
