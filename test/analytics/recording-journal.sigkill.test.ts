import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { BufferedRetrievalRecorder } from '../../adapters/postgres/analytics/buffered.retrieval-recorder';
import { RetrievalJournal } from '../../adapters/postgres/analytics/retrieval-journal';
import type { Database } from '../../adapters/postgres/database';
import { relationalMigrations } from '../../adapters/postgres/migrations';
import { migrate } from '../../adapters/postgres/migrator';
import { describeWithRealServices, openScratchDatabase } from '../support/databases';
import { expectedRows, recordedRows, seedRecordingTarget } from './recording-journal';

/**
 * Crash-safe recording with a real crash: a process records events continuously (flushing every 20 ms, so the
 * kill lands between, before or during flushes) and is SIGKILLed; the next boot replays its journal. Every event
 * the process accepted is then in the tables exactly once (no gaps, no duplicates).
 */
describeWithRealServices('analytics recording journal: process SIGKILLed while recording (Postgres)', () => {
  let db: Database;
  let url: string;
  let teardown: () => Promise<void>;
  let dir: string;

  beforeAll(async () => {
    ({ db, url, teardown } = await openScratchDatabase('journal_sigkill'));
    await migrate(db.knex, [relationalMigrations]);
    dir = mkdtempSync(path.join(tmpdir(), 'ap-journal-kill-'));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await teardown?.();
  });

  it('every event accepted before the kill is recorded once after the next boot (3 kills)', async () => {
    for (let round = 0; round < 3; round++) {
      const target = await seedRecordingTarget(db.knex);
      const child = spawn(
        process.execPath,
        ['-r', 'tsx/cjs', path.join(__dirname, 'fixtures', 'journaled-recorder-child.ts'), url, dir, JSON.stringify(target)],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      // Only lines ended by a newline were printed whole: a read can end inside one.
      const printed = () =>
        out
          .slice(0, out.lastIndexOf('\n') + 1)
          .split('\n')
          .slice(0, -1);
      // Killed once it has accepted a few hundred events: several flushes committed, one maybe in flight.
      await new Promise<void>((resolve, reject) => {
        const check = setInterval(() => {
          if (printed().length > 300 + round * 137) {
            clearInterval(check);
            child.kill('SIGKILL');
          }
        }, 5);
        child.on('exit', () => resolve());
        child.on('error', reject);
      });
      const last = Number(printed().at(-1));
      // Events 0..last were accepted: more than 300 lines printed means last >= 300.
      expect(last).toBeGreaterThanOrEqual(300);
      const before = await recordedRows(db.knex, target);

      const replayed = await new BufferedRetrievalRecorder(db.knex, { journal: new RetrievalJournal({ dir }) }).replayJournal();
      const after = await recordedRows(db.knex, target);
      // Without the journal these accepted events would have been lost with the process.
      expect(replayed).toBeGreaterThan(0);
      expect(before.queries.size).toBeLessThanOrEqual(last);
      for (let n = 0; n <= last; n++)
        expect({ n, queries: after.queries.get(`q-${n}`), hits: after.hits.get(`q-${n}`) }).toEqual({ n, ...expectedRows(n) });
      // The one event it may have recorded after its last print is there once or not at all; nothing beyond.
      expect(after.queries.size === last + 1 || after.queries.size === last + 2).toBe(true);
      if (after.queries.size === last + 2) expect(after.queries.get(`q-${last + 1}`)).toBe(expectedRows(last + 1).queries);
      expect(readdirSync(dir)).toEqual([]);
    }
  });
});
