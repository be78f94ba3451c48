import type { CommonPasswordList } from '../../core/ports/common-password-list';

/**
 * The `size` most common passwords of zxcvbn-ts's frequency-ranked common dictionary
 * (`@zxcvbn-ts/language-common`, a maintained password-strength project; ~49,000 in all, all of them by default:
 * the top 500 missed `password123` and `letmein1`), held lower-cased in a Set (about 4 MB); loaded on first use.
 */
export class ZxcvbnCommonPasswordList implements CommonPasswordList {
  readonly id = 'zxcvbn-common';
  private words: Set<string> | null = null;

  constructor(private readonly size = Number.POSITIVE_INFINITY) {}

  includes(password: string): boolean {
    if (!this.words) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { dictionary } = require('@zxcvbn-ts/language-common') as { dictionary: Record<string, string[]> };
      this.words = new Set((dictionary['passwords-common'] ?? []).slice(0, this.size).map((w) => w.toLowerCase()));
    }
    return this.words.has(password.toLowerCase());
  }
}
