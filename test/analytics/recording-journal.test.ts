import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { BufferedRetrievalRecorder } from '../../adapters/postgres/analytics/buffered.retrieval-recorder';
import { RetrievalJournal } from '../../adapters/postgres/analytics/retrieval-journal';
import { type Database, openDatabase } from '../../adapters/postgres/database';
import { relationalMigrations } from '../../adapters/postgres/migrations';
import { migrate } from '../../adapters/postgres/migrator';
import { expectedRows, recordedRows, type RecordingTarget, retrievalEvent, seedRecordingTarget } from './recording-journal';

/**
 * Crash-safe recording (issue 12): events buffered in memory are journaled first, so a process that dies before
 * its flush loses none; the next boot replays them, and an event whose batch was committed but whose journal
 * segment was not yet removed is not counted twice. The crash is simulated in-process here (the recorder is
 * dropped with its buffer, never flushed); `recording-journal.sigkill.test.ts` kills a real process.
 */
describe('analytics recording journal (PGlite)', () => {
  let db: Database;
  let dir: string;
  let target: RecordingTarget;
  /** A recorder that never flushes on its own: what it buffered is lost unless the journal has it. */
  const crashProne = () =>
    new BufferedRetrievalRecorder(db.knex, { flushIntervalMs: 3_600_000, maxBuffered: 100_000, journal: new RetrievalJournal({ dir }) });
  const booted = () => new BufferedRetrievalRecorder(db.knex, { journal: new RetrievalJournal({ dir }) });
  const segments = () => readdirSync(dir).filter((f) => f.endsWith('.jsonl'));

  beforeAll(async () => {
    db = await openDatabase({ memory: true });
    await migrate(db.knex, [relationalMigrations]);
  });
  afterAll(async () => {
    await db?.close();
  });
  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ap-journal-'));
    target = await seedRecordingTarget(db.knex);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function expectExactlyOnce(rows: Awaited<ReturnType<typeof recordedRows>>, events: number) {
    expect(rows.queries.size).toBe(events);
    for (let n = 0; n < events; n++) {
      expect({ n, queries: rows.queries.get(`q-${n}`), hits: rows.hits.get(`q-${n}`) }).toEqual({ n, ...expectedRows(n) });
    }
  }

  it('events buffered when the process dies are written by the next boot, once', async () => {
    const dying = crashProne();
    for (let n = 0; n < 25; n++) dying.record(retrievalEvent(target, n));
    // The crash: nothing was flushed.
    expect((await recordedRows(db.knex, target)).queries.size).toBe(0);

    const next = booted();
    expect(await next.replayJournal()).toBe(25);
    expectExactlyOnce(await recordedRows(db.knex, target), 25);
    expect(segments()).toEqual([]);
    // A second boot finds nothing left to replay.
    expect(await booted().replayJournal()).toBe(0);
    expectExactlyOnce(await recordedRows(db.knex, target), 25);
  });

  it('a batch committed but still in the journal when the process died is not counted twice', async () => {
    const dying = crashProne();
    for (let n = 0; n < 10; n++) dying.record(retrievalEvent(target, n));
    const [segment] = segments();
    const copy = path.join(dir, 'saved');
    copyFileSync(path.join(dir, segment as string), copy);
    await dying.flush();
    expect(segments()).toEqual([]);
    // The crash came between the commit and the removal of the batch's segment; then more events were buffered.
    copyFileSync(copy, path.join(dir, segment as string));
    rmSync(copy);
    for (let n = 10; n < 16; n++) dying.record(retrievalEvent(target, n));

    expect(await booted().replayJournal()).toBe(16);
    expectExactlyOnce(await recordedRows(db.knex, target), 16);
    expect(segments()).toEqual([]);
  });

  it('a torn last line (the write the crash interrupted) is skipped, the lines before it are replayed', async () => {
    const dying = crashProne();
    for (let n = 0; n < 3; n++) dying.record(retrievalEvent(target, n));
    const [segment] = segments();
    writeFileSync(path.join(dir, segment as string), '{"organizationId":"', { flag: 'a' });
    expect(await booted().replayJournal()).toBe(3);
    expectExactlyOnce(await recordedRows(db.knex, target), 3);
  });

  it("a live process's journal is left alone, and a committed flush leaves no segment behind", async () => {
    const live = path.join(dir, `${process.ppid}.abcdef.1.jsonl`);
    writeFileSync(live, `${JSON.stringify({ ...retrievalEvent(target, 0), id: '9f5bd1a2-5d2b-4e59-8a43-8e1b0a7b6a10' })}\n`);
    const recorder = booted();
    expect(await recorder.replayJournal()).toBe(0);
    for (let n = 0; n < 4; n++) recorder.record(retrievalEvent(target, n));
    await recorder.flush();
    expect(segments()).toEqual([path.basename(live)]);
    expectExactlyOnce(await recordedRows(db.knex, target), 4);
    await recorder.close();
  });
});
