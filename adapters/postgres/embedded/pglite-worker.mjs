// PGlite in a worker thread, reachable only through this thread's MessagePort: no TCP port, no socket file.
// Plain JavaScript so it loads natively under tsx, jest and node alike.
//
// PGlite has one session. Several logical connections (one per pg Client of the main thread) share it: a
// connection owns the session from its first message until the backend answers ReadyForQuery "idle", so a
// transaction is never interleaved with another connection's statements. A connection that waits longer
// than `queueTimeoutMs` for the session is answered with an ErrorResponse (SQLSTATE 57P03) instead of
// waiting forever behind a held transaction; the main thread maps that error to 503.
import { readlinkSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite-pgvector';

const { dataDir, queueTimeoutMs } = workerData;
const BUSY_CODE = '57P03';

const db = await PGlite.create({ dataDir, extensions: { vector, pg_trgm } });
// The first statements warm PGlite up (seconds on a reopened folder): at boot, not inside a request's wait bound.
// A connection's startup is slow the first time, so it is rehearsed here too.
await db.query('select 1');
await db.execProtocolRaw(startupMessage());

/** @type {Map<number, {buffer: Buffer, pending: {bytes: Uint8Array, at: number}[], skipUntilSync: boolean, started: boolean}>} */
const conns = new Map();
/** Connections with pending messages, in arrival order (fairness between waiters). */
const waiting = [];
let owner = null;
let running = false;

const post = (id, bytes) => {
  if (bytes.length) parentPort.postMessage({ t: 'data', id, bytes }, [bytes.buffer]);
};

/** Splits a connection's byte stream into protocol messages (the first one, without a type byte, is the startup). */
function frame(conn, chunk) {
  conn.buffer = conn.buffer.length ? Buffer.concat([conn.buffer, chunk]) : Buffer.from(chunk);
  const out = [];
  for (;;) {
    const b = conn.buffer;
    if (!conn.started) {
      if (b.length < 8) break;
      const len = b.readInt32BE(0);
      if (b.length < len) break;
      const code = b.readInt32BE(4);
      conn.buffer = b.subarray(len);
      if (code === 80877103) {
        post(conn.id, new Uint8Array(Buffer.from('N'))); // SSLRequest: no TLS in-process
        continue;
      }
      conn.started = true;
      out.push(new Uint8Array(b.subarray(0, len)));
      continue;
    }
    if (b.length < 5) break;
    const len = 1 + b.readInt32BE(1);
    if (b.length < len) break;
    out.push(new Uint8Array(b.subarray(0, len)));
    conn.buffer = b.subarray(len);
  }
  return out;
}

function startupMessage() {
  const body = Buffer.from('user\0postgres\0database\0postgres\0\0', 'utf8');
  const head = Buffer.alloc(8);
  head.writeInt32BE(8 + body.length, 0);
  head.writeInt32BE(196608, 4);
  return new Uint8Array(Buffer.concat([head, body]));
}

function errorResponse(message) {
  const fields = Buffer.from(`SERROR\0VERROR\0C${BUSY_CODE}\0M${message}\0\0`, 'utf8');
  const head = Buffer.alloc(5);
  head.write('E', 0);
  head.writeInt32BE(4 + fields.length, 1);
  return Buffer.concat([head, fields]);
}
const READY_IDLE = Buffer.from([0x5a, 0, 0, 0, 5, 0x49]);

/** Answers a connection that waited too long, as a real backend answers a failed statement. */
function refuse(conn) {
  const msg = `database busy: waited more than ${queueTimeoutMs} ms for the embedded database`;
  const out = [errorResponse(msg)];
  let sawSync = false;
  while (conn.pending.length) {
    const { bytes } = conn.pending.shift();
    const type = bytes[0];
    if (type === 0x53 /* Sync */ || type === 0x51 /* Query */) {
      sawSync = true;
      break;
    }
  }
  if (sawSync) out.push(READY_IDLE);
  else conn.skipUntilSync = true;
  post(conn.id, new Uint8Array(Buffer.concat(out)));
}

const endsIdle = (chunks) => {
  const last = chunks[chunks.length - 1];
  if (!last || last.length < 6) return false;
  const tail = last.subarray(last.length - 6);
  return tail[0] === 0x5a && tail[4] === 5 && tail[5] === 0x49;
};

/**
 * The backend's answer to protocol bytes. Not `execProtocolRaw`: besides the bytes it parses every message
 * into a results list that PGlite (0.5.x) clears only in its parsed `execProtocol`, so every row ever read
 * stayed in this thread's heap (about 1 KB a row: an export of 100k contacts kept ~90 MB) and was parsed for
 * nothing. The stream form hands over the bytes only (a view into WASM memory: copied before the next call).
 */
async function exchange(bytes) {
  const chunks = [];
  await db.execProtocolRawStream(bytes, { onRawData: (data) => chunks.push(data.slice()) });
  return chunks.length === 1 ? chunks[0] : exactCopy(chunks);
}

/** The chunks in one buffer of exactly their length (not Node's pool), so posting it can hand it over. */
function exactCopy(chunks) {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/**
 * Runs every message the owner has sent so far in one call to the backend, as a socket would deliver them: the
 * extended protocol's Parse, Bind, Describe, Execute and Sync of a statement arrive together, and one call
 * for all of them costs the call's fixed work once instead of five times.
 */
async function runOwner(conn) {
  const batch = [];
  while (conn.pending.length) {
    const { bytes } = conn.pending.shift();
    if (bytes[0] !== 0x58 /* Terminate */) batch.push(bytes);
  }
  if (!batch.length) return false;
  const outs = [];
  // a startup message (no type byte, so its first byte is 0) is read by PGlite as a call of its own
  if (batch[0][0] === 0) outs.push(await exchange(batch.shift()));
  if (batch.length) outs.push(await exchange(batch.length === 1 ? batch[0] : exactCopy(batch)));
  const out = outs.length === 1 ? outs[0] : exactCopy(outs);
  const idle = endsIdle([out]); // before posting: the post hands the buffer over and leaves `out` empty
  post(conn.id, out);
  return idle;
}

async function pump() {
  if (running) return;
  running = true;
  try {
    for (;;) {
      let conn = owner === null ? null : conns.get(owner);
      if (!conn) {
        owner = null;
        const next = waiting.shift();
        if (next === undefined) break;
        conn = conns.get(next);
        if (!conn || !conn.pending.length) continue;
        owner = conn.id;
      }
      if (!conn.pending.length) break; // the owner is mid-transaction: wait for its next statement
      const idle = await runOwner(conn);
      if (idle) owner = null;
    }
  } catch (error) {
    parentPort.postMessage({ t: 'fatal', message: String(error?.stack ?? error) });
  } finally {
    running = false;
  }
}

async function close(id) {
  const conn = conns.get(id);
  conns.delete(id);
  if (conn && owner === id) {
    owner = null;
    // A connection gone mid-transaction must not leave the shared session inside it.
    if (db.isInTransaction()) await db.exec('ROLLBACK').catch(() => undefined);
  }
  void pump();
}

function onData(id, chunk) {
  const conn = conns.get(id);
  if (!conn) return;
  for (const bytes of frame(conn, chunk)) {
    if (conn.skipUntilSync) {
      if (bytes[0] === 0x53) {
        conn.skipUntilSync = false;
        post(id, new Uint8Array(READY_IDLE));
      }
      continue;
    }
    if (!conn.pending.length && owner !== id) waiting.push(id);
    conn.pending.push({ bytes, at: Date.now() });
  }
  void pump();
}

// Waiters behind a held session are refused after queueTimeoutMs instead of hanging.
setInterval(
  () => {
    if (owner === null) return;
    const now = Date.now();
    for (let i = waiting.length - 1; i >= 0; i--) {
      const conn = conns.get(waiting[i]);
      if (!conn || conn.id === owner || !conn.pending.length) continue;
      if (now - conn.pending[0].at < queueTimeoutMs) continue;
      waiting.splice(i, 1);
      refuse(conn);
    }
  },
  Math.max(10, Math.min(250, queueTimeoutMs / 4)),
).unref();

parentPort.on('message', (m) => {
  if (m.t === 'data') onData(m.id, m.bytes);
  else if (m.t === 'open') conns.set(m.id, { id: m.id, buffer: Buffer.alloc(0), pending: [], skipUntilSync: false, started: false });
  else if (m.t === 'close') void close(m.id);
  else if (m.t === 'shutdown') {
    void db.close().then(() => parentPort.postMessage({ t: 'closed' }));
  }
});
/** This thread's kernel id (Linux), so the main thread can lower its priority (adapters/system/thread-priority.ts). */
function kernelThreadId() {
  try {
    return Number(readlinkSync('/proc/thread-self').split('/').pop()) || null;
  } catch {
    return null;
  }
}
parentPort.postMessage({ t: 'ready', tid: kernelThreadId() });
