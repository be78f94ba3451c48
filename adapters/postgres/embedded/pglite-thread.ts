import { join } from 'node:path';
import { Duplex } from 'node:stream';
import { Worker } from 'node:worker_threads';

import { lowerThreadPriority } from '../../system/thread-priority';

interface FromWorker {
  t: 'ready' | 'data' | 'fatal' | 'closed';
  id?: number;
  bytes?: Uint8Array;
  message?: string;
  tid?: number | null;
}

export interface PgliteThreadOptions {
  /** Folder of the database files; absent: in memory. */
  dataDir?: string;
  /** How long a connection may wait for the single PGlite session before its statement fails (57P03 → 503). */
  queueTimeoutMs: number;
  /** The thread's nice value (Linux): under CPU contention the event loop that answers requests runs first. 0: as the process. */
  nice?: number;
}

/**
 * PGlite running in a worker thread, so its work (WASM Postgres) leaves the event loop that serves requests,
 * and reachable only in-process: `connect()` makes a Duplex a pg Client speaks the wire protocol over.
 */
export class PgliteThread {
  private readonly streams = new Map<number, WorkerStream>();
  private nextId = 1;
  private closing?: Promise<void>;

  private constructor(
    private readonly worker: Worker,
    /** The database thread's kernel id (Linux), or null. */
    readonly tid: number | null,
  ) {
    worker.on('message', (m: FromWorker) => {
      if (m.t === 'data' && m.id !== undefined && m.bytes)
        this.streams.get(m.id)?.push(Buffer.from(m.bytes.buffer, m.bytes.byteOffset, m.bytes.byteLength));
    });
    // A dead worker fails every open connection instead of leaving its queries hanging.
    const failAll = (error: Error) => {
      for (const stream of this.streams.values()) stream.destroy(error);
    };
    worker.on('error', failAll);
    worker.on('exit', () => failAll(new Error('embedded database thread exited')));
  }

  static async start(options: PgliteThreadOptions): Promise<PgliteThread> {
    const worker = new Worker(join(__dirname, 'pglite-worker.mjs'), { workerData: options });
    const tid = await new Promise<number | null>((resolve, reject) => {
      const onMessage = (m: FromWorker) => {
        if (m.t !== 'ready') return;
        worker.off('error', reject);
        worker.off('message', onMessage);
        resolve(m.tid ?? null);
      };
      worker.on('message', onMessage);
      worker.once('error', reject);
    });
    lowerThreadPriority(tid, options.nice ?? 0);
    const thread = new PgliteThread(worker, tid);
    worker.on('message', (m: FromWorker) => {
      if (m.t === 'fatal') worker.emit('error', new Error(`embedded database failed: ${m.message}`));
    });
    return thread;
  }

  /** A new logical connection: the `stream` factory handed to pg. */
  connect(): Duplex {
    const id = this.nextId++;
    const stream = new WorkerStream(id, this.worker, () => this.streams.delete(id));
    this.streams.set(id, stream);
    this.worker.postMessage({ t: 'open', id });
    return stream;
  }

  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      const onMessage = (m: FromWorker) => {
        if (m.t === 'closed') void this.worker.terminate().then(() => resolve());
      };
      this.worker.on('message', onMessage);
      this.worker.once('exit', () => resolve());
      this.worker.postMessage({ t: 'shutdown' });
    });
    return this.closing;
  }
}

/**
 * The socket-shaped Duplex pg expects. Writes made in one tick (pg writes Parse, Bind, Describe, Execute and
 * Sync one by one) travel to the worker as one message.
 */
class WorkerStream extends Duplex {
  private outgoing: Buffer[] = [];
  private flushScheduled = false;
  private released = false;

  constructor(
    private readonly id: number,
    private readonly worker: Worker,
    private readonly onClose: () => void,
  ) {
    super();
  }

  connect(): this {
    process.nextTick(() => this.emit('connect'));
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.outgoing.push(chunk);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      process.nextTick(() => this.flush());
    }
    callback();
  }

  private flush(): void {
    this.flushScheduled = false;
    if (this.released || !this.outgoing.length) return;
    // A copy of exactly these bytes, handed over: posting a Buffer clones its whole backing store, which for
    // pg's small writes is Node's 8 KB pool slab (8 KB copied and collected for a 100-byte statement).
    const bytes = new Uint8Array(this.outgoing.reduce((n, c) => n + c.length, 0));
    let at = 0;
    for (const chunk of this.outgoing) {
      bytes.set(chunk, at);
      at += chunk.length;
    }
    this.outgoing = [];
    this.worker.postMessage({ t: 'data', id: this.id, bytes }, [bytes.buffer]);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.flush();
    this.release();
    this.push(null);
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.release();
    callback(error);
  }

  private release(): void {
    if (this.released) return;
    this.released = true;
    this.worker.postMessage({ t: 'close', id: this.id });
    this.onClose();
  }
}
