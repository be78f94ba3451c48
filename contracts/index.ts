import type { Operation } from './operation';
import { identityOperations } from './operations/identity';
import { modelOperations } from './operations/models';
import { platformOperations } from './operations/platform';

/** Every endpoint of the backend. Each area appends its list here. */
export const allOperations: Operation[] = [...platformOperations, ...identityOperations, ...modelOperations];
