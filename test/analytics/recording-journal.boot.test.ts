import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { openDatabase } from '../../adapters/postgres/database';
import { relationalMigrations } from '../../adapters/postgres/migrations';
import { migrate } from '../../adapters/postgres/migrator';
import { startTestPlatform } from '../support/platform';
import { expectedRows, recordedRows, retrievalEvent, seedRecordingTarget } from './recording-journal';

/**
 * The platform's boot replays what a crashed process left in DATA_DIR/analytics-journal (issue 12): the
 * journal of a process that is gone is written to the tables and removed.
 */
describe('analytics journal replayed when the platform boots (PGlite on disk)', () => {
  it('writes the events a dead process journaled, once, and removes its segment', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'ap-journal-boot-'));
    const db = await openDatabase({ dataDir });
    await migrate(db.knex, [relationalMigrations]);
    const target = await seedRecordingTarget(db.knex);
    await db.close();
    const journal = path.join(dataDir, 'analytics-journal');
    mkdirSync(journal);
    // A pid that is certainly not running any more: a process that has exited.
    const deadPid = spawnSync(process.execPath, ['-e', '0']).pid as number;
    const events = Array.from({ length: 7 }, (_, n) => ({ ...retrievalEvent(target, n), id: randomUUID() }));
    writeFileSync(path.join(journal, `${deadPid}.0123456789ab.1.jsonl`), events.map((e) => `${JSON.stringify(e)}\n`).join(''));

    const platform = await startTestPlatform({ DATA_DIR: dataDir }, { memoryDatabase: false });
    try {
      const rows = await recordedRows(platform.infra.db.knex, target);
      expect(rows.queries.size).toBe(7);
      for (let n = 0; n < 7; n++)
        expect({ q: rows.queries.get(`q-${n}`), h: rows.hits.get(`q-${n}`) }).toEqual({ q: expectedRows(n).queries, h: 2 });
      expect(readdirSync(journal)).toEqual([]);
    } finally {
      await platform.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
