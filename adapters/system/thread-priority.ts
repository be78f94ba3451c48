/**
 * Background threads (the embedded database, the heavy-work pool) run at a lower CPU priority than the event
 * loop that answers requests: on a machine whose cores are all busy, the loop runs first, so a request that
 * needs none of their work is not queued behind it. With spare cores nothing changes. On Linux a thread's
 * nice value is its own, set through its thread id; elsewhere, or where it is not allowed, threads keep the
 * process's priority.
 */
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** The calling thread's kernel id (Linux), or null. Called inside the worker thread, which posts it back. */
export function kernelThreadId(): number | null {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(tid) && tid > 0 ? tid : null;
  } catch {
    return null;
  }
}

/** Sets thread `tid`'s nice value to `nice` (0-19); false when it could not. */
export function lowerThreadPriority(tid: number | null | undefined, nice: number): boolean {
  if (!tid || !(nice > 0)) return false;
  try {
    setPriority(tid, Math.min(19, Math.round(nice)));
    return true;
  } catch {
    return false;
  }
}

/** The nice value of thread `tid`, or null (tests and diagnostics). */
export function threadNice(tid: number): number | null {
  try {
    return getPriority(tid);
  } catch {
    return null;
  }
}
