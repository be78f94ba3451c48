import type { Clock } from '../../core/ports/clock';

export class SystemClock implements Clock {
  readonly id = 'system';
  now() {
    return new Date();
  }
}
