import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { Store } from '../ports/store';

export interface PromptDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
}
