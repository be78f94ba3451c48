import { randomBytes } from 'node:crypto';
import { closeSync, fdatasync, mkdirSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';

import type { RetrievalEvent } from '../../../core/ports/retrieval-recorder';

/** An event with the id that makes its rows idempotent (a replayed event inserts nothing twice). */
export type JournaledEvent = RetrievalEvent & { id: string };

export interface RetrievalJournalOptions {
  /** A folder of its own (under DATA_DIR); processes sharing it each write their own segment files. */
  dir: string;
  /** Longest time an appended event waits before fdatasync (a machine crash loses at most this much). */
  syncIntervalMs?: number;
  log?: (level: 'warn' | 'error', message: string, extra?: unknown) => void;
}

const SEGMENT = /^(\d+)\.([0-9a-f]+)\.(\d+)\.jsonl$/;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Append-only journal of buffered retrieval events, so a process crash loses none. `append` is one write(2) of
 * a JSON line (the kernel has it once the call returns, which is what a killed process needs); fdatasync runs
 * off the chat path at most every `syncIntervalMs`. The recorder `rotate`s to a new segment when it takes a
 * batch and `discard`s the batch's segments once the batch is committed. Segments of a process that is gone
 * (its pid is not running, or it is this pid with another boot id: a restarted container) are `orphans`,
 * replayed at boot. A segment replayed after a partly finished flush is harmless: rows are keyed by event id.
 */
export class RetrievalJournal {
  private readonly boot = randomBytes(6).toString('hex');
  private seq = 0;
  private fd: number | null = null;
  private current: string | null = null;
  /** Closed segments whose events are not committed yet (a failed batch keeps them). */
  private pending: string[] = [];
  private dirty = false;
  private syncTimer: NodeJS.Timeout | null = null;
  private broken = false;

  constructor(private readonly o: RetrievalJournalOptions) {
    mkdirSync(o.dir, { recursive: true, mode: 0o700 });
  }

  append(event: JournaledEvent): void {
    if (this.broken) return;
    try {
      if (this.fd === null) {
        this.current = path.join(this.o.dir, `${process.pid}.${this.boot}.${++this.seq}.jsonl`);
        this.fd = openSync(this.current, 'a', 0o600);
      }
      writeSync(this.fd, `${JSON.stringify(event)}\n`);
      this.dirty = true;
      if (!this.syncTimer) {
        this.syncTimer = setTimeout(() => this.sync(), this.o.syncIntervalMs ?? 200);
        this.syncTimer.unref();
      }
    } catch (error) {
      // A full or read-only disk must not fail chat turns: recording goes on in memory only.
      this.broken = true;
      this.o.log?.('error', 'analytics: journal not writable; buffered events are no longer crash-safe', error);
    }
  }

  private sync(): void {
    this.syncTimer = null;
    if (this.fd === null || !this.dirty) return;
    this.dirty = false;
    fdatasync(this.fd, () => undefined);
  }

  /** Closes the segment being written: everything appended so far is in the returned (not yet committed) segments. */
  rotate(): string[] {
    if (this.fd !== null) {
      closeSync(this.fd);
      this.fd = null;
      this.dirty = false;
      this.pending.push(this.current as string);
    }
    return [...this.pending];
  }

  /** The batch holding these segments' events is committed. */
  discard(segments: string[]): void {
    for (const s of segments) unlinkQuietly(s);
    this.pending = this.pending.filter((s) => !segments.includes(s));
  }

  /** Segments left by processes that are gone, with their events (a torn last line is skipped). */
  orphans(): { file: string; events: JournaledEvent[] }[] {
    const out: { file: string; events: JournaledEvent[] }[] = [];
    for (const name of readdirSync(this.o.dir).sort()) {
      const m = SEGMENT.exec(name);
      if (!m) continue;
      const pid = Number(m[1]);
      if (m[2] === this.boot || (pid !== process.pid && alive(pid))) continue;
      const file = path.join(this.o.dir, name);
      const events: JournaledEvent[] = [];
      for (const line of readFileSync(file, 'utf8').split('\n')) {
        if (!line) continue;
        try {
          events.push(JSON.parse(line) as JournaledEvent);
        } catch {
          // The line being written when the process died.
        }
      }
      out.push({ file, events });
    }
    return out;
  }

  removeOrphan(file: string): void {
    unlinkQuietly(file);
  }

  close(): void {
    if (this.syncTimer) clearTimeout(this.syncTimer);
    this.syncTimer = null;
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

function unlinkQuietly(file: string) {
  try {
    unlinkSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}
