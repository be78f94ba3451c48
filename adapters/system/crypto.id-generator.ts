import { randomBytes, randomUUID } from 'node:crypto';

import type { IdGenerator } from '../../core/ports/id-generator';

export class CryptoIdGenerator implements IdGenerator {
  readonly id = 'crypto';
  uuid() {
    return randomUUID();
  }
  secret(bytes = 32) {
    return randomBytes(bytes).toString('base64url');
  }
}
