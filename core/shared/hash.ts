import { createHash } from 'node:crypto';

/** Lookup hash for high-entropy secrets (API keys, invitation tokens); never used for passwords. */
export const sha256Hex = (value: string) => createHash('sha256').update(value).digest('hex');
