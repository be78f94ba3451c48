import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A side effect keyed by job id, safe to repeat: the first call for an id creates `sink/<id>` (O_EXCL)
 * and appends one line to `effects.log`; later calls for the same id do nothing.
 * Returns whether this call applied the effect.
 */
export function applyEffectOnce(workDir: string, jobId: string, by: string): boolean {
  const sink = join(workDir, 'sink');
  mkdirSync(sink, { recursive: true });
  try {
    writeFileSync(join(sink, encodeURIComponent(jobId)), by, { flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  appendFileSync(join(workDir, 'effects.log'), `${jobId} ${by}\n`);
  return true;
}
