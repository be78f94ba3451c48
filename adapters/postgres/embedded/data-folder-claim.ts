/**
 * The embedded database belongs to one process: PGlite keeps its state in memory and writes its files when it
 * pleases, so a second process opening the same folder writes where the first never looks (and the first
 * overwrites it later). Whoever opens it first claims the data folder with `DATA_DIR/platform.pid`, created
 * atomically (the claim is written aside and hard-linked into place, so nobody ever reads a half-written one);
 * every other opener, in this process or another, fails with DataFolderInUseError naming the holder.
 *
 * A claim whose process is gone (kill -9, a crash, a power cut) is stale and taken over: its pid no longer
 * exists (`kill(pid, 0)` → ESRCH), or it is now another process (Linux: a different start time in
 * /proc/<pid>/stat), or it is this very pid with another start time (a container's init restarted with the
 * same pid). The take-over itself runs under a short-lived second file, so two openers finding the same
 * stale claim cannot both win. Released on close, and on exit should the process end without closing.
 */
import { closeSync, linkSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export const CLAIM_FILE = 'platform.pid';

export class DataFolderInUseError extends Error {
  readonly code = 'DATA_FOLDER_IN_USE';
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(`the data folder is in use by process ${pid} (${dataDir}): the embedded database belongs to one process; stop it first`);
    this.name = 'DataFolderInUseError';
  }
}

export interface DataFolderClaim {
  readonly file: string;
  /** Removes the claim (only if it is still this process's). Idempotent. */
  release(): void;
}

interface Owner {
  pid: number;
  /** Start time of the process in clock ticks since boot (Linux), when it was known. */
  started: string | null;
}

/** Claim files this process holds, by path, with their exact content. */
const held = new Map<string, string>();
let exitHookInstalled = false;

/** A take-over guard older than this was left by a process that died inside the few statements it covers. */
const GUARD_STALE_MS = 10_000;

/** The process's start time (field 22 of /proc/<pid>/stat), or null where there is no /proc. */
function startTimeOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count fields after its closing one.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

const contentOf = (owner: Owner) => `${owner.pid}\n${owner.started ? `started ${owner.started}\n` : ''}`;

function parse(content: string): Owner | null {
  const [first, second] = content.split('\n');
  const pid = Number(first);
  if (!Number.isInteger(pid) || pid <= 0) return null;
  const started = /^started (\d+)$/.exec(second ?? '')?.[1] ?? null;
  return { pid, started };
}

function read(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** Whether the recorded owner is a live process (this one included, when another copy of this module holds it). */
function alive(owner: Owner): boolean {
  // This pid but another start time: an earlier incarnation with the same pid (a restarted container's init).
  if (owner.pid === process.pid) return owner.started !== null && owner.started === startTimeOf(process.pid);
  try {
    process.kill(owner.pid, 0);
  } catch (e) {
    // EPERM: it exists, under another user.
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  const now = owner.started ? startTimeOf(owner.pid) : null;
  return !(owner.started && now && now !== owner.started);
}

function writeNew(file: string, content: string) {
  const fd = openSync(file, 'wx', 0o600);
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
}

/**
 * Puts `content` at `file` unless something is there already: written aside and hard-linked into place, so it
 * is never seen half-written; where the file system has no hard links, created in place with O_EXCL.
 */
function createExclusive(file: string, content: string): boolean {
  const aside = `${file}.${process.pid}.${Date.now()}`;
  writeNew(aside, content);
  try {
    linkSync(aside, file);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw e;
  } finally {
    unlinkSync(aside);
  }
  try {
    writeNew(file, content);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
}

/** An unreadable claim this recent may be one being written in place (no hard links): not judged yet. */
const UNREADABLE_GRACE_MS = 1_000;

function modifiedMsAgo(file: string): number {
  try {
    return Date.now() - statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

/** Replaces the stale claim `seen` with `content`, unless someone else changed the file meanwhile. */
function takeOver(file: string, seen: string, content: string): boolean {
  const guard = `${file}.takeover`;
  try {
    closeSync(openSync(guard, 'wx', 0o600));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    try {
      if (Date.now() - statSync(guard).mtimeMs > GUARD_STALE_MS) unlinkSync(guard);
    } catch {
      // gone meanwhile
    }
    return false;
  }
  try {
    if (read(file) !== seen) return false;
    unlinkSync(file);
    return createExclusive(file, content);
  } finally {
    unlinkSync(guard);
  }
}

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

function releaseAll() {
  for (const file of [...held.keys()]) release(file);
}

function release(file: string) {
  const content = held.get(file);
  if (content === undefined) return;
  held.delete(file);
  try {
    if (read(file) === content) unlinkSync(file);
  } catch {
    // the folder is gone, or not ours to clean any more
  }
}

function hold(file: string, content: string): DataFolderClaim {
  held.set(file, content);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', releaseAll);
  }
  return { file, release: () => release(file) };
}

/**
 * Claims `dataDir` (which must exist) for this process, or throws DataFolderInUseError naming the live holder.
 */
export function claimDataFolder(dataDir: string): DataFolderClaim {
  const file = join(dataDir, CLAIM_FILE);
  if (held.has(file)) throw new DataFolderInUseError(dataDir, process.pid);
  const content = contentOf({ pid: process.pid, started: startTimeOf(process.pid) });
  for (let attempt = 0; attempt < 80; attempt++) {
    if (createExclusive(file, content)) return hold(file, content);
    const seen = read(file);
    if (seen === null) continue; // released meanwhile
    const owner = parse(seen);
    if (owner && alive(owner)) throw new DataFolderInUseError(dataDir, owner.pid);
    // Stale, or unreadable for longer than any live opener takes to write it: take it over.
    if ((owner || modifiedMsAgo(file) > UNREADABLE_GRACE_MS) && takeOver(file, seen, content)) return hold(file, content);
    sleep(25);
  }
  throw new Error(`could not claim the data folder ${dataDir} (${file} keeps changing)`);
}
