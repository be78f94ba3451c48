/**
 * docs/contracts.md "Delivery guarantees": SIGTERM: readiness fails at once, keep-alive answers carry `Connection: close`,
 * in-flight requests and streams finish within SHUTDOWN_GRACE_MS before the process exits.
 *
 * The real binary (`platform start`: gateway + api + worker in one process) in a child process. A client uploads a
 * document slowly (a chunked multipart body: the gateway streams it to the api over loopback, so both servers hold
 * the request), and SIGTERM arrives halfway through the body. Then: `/ready` answers 503 with `Connection: close`
 * on a new connection; a keep-alive connection that was idle is closed cleanly by the server (or, if still open,
 * its next request is answered with `Connection: close`), never reset; the rest of the body is sent and the upload
 * is answered 201 with `Connection: close`; the process logs its last line and exits 0 within the grace.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { freePort } from '../support/free-port';
import { HttpClient } from '../support/http';

const ROOT = join(__dirname, '..', '..');
const GRACE_MS = 20_000;
/** Ceilings for a loaded machine, not timing assertions. */
const BOOT_CEILING_MS = 180_000;
jest.setTimeout(BOOT_CEILING_MS + 2 * GRACE_MS + 30_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves with what `promise` gives, or rejects after `ms` naming `what`. */
async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** A raw keep-alive connection: requests written by hand, so that a close and a reset can be told apart. */
class RawConnection {
  readonly socket: net.Socket;
  private buffered = '';
  ended = false;
  error: NodeJS.ErrnoException | null = null;

  constructor(port: number) {
    this.socket = net.connect(port, '127.0.0.1');
    this.socket.setEncoding('utf8');
    this.socket.on('data', (d: string) => (this.buffered += d));
    this.socket.on('end', () => (this.ended = true));
    this.socket.on('error', (e: NodeJS.ErrnoException) => (this.error = e));
  }

  /** Sends a GET and reads its answer (a body with a Content-Length): status line and lower-cased headers. */
  async get(path: string): Promise<{ status: number; headers: Record<string, string> }> {
    this.buffered = '';
    this.socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n`);
    for (let i = 0; i < 200; i++) {
      const head = this.buffered.indexOf('\r\n\r\n');
      if (head >= 0) {
        const [statusLine, ...lines] = this.buffered.slice(0, head).split('\r\n');
        const headers = Object.fromEntries(
          lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
        );
        if (this.buffered.length >= head + 4 + Number(headers['content-length'] ?? 0)) {
          return { status: Number(statusLine!.split(' ')[1]), headers };
        }
      }
      if (this.error || this.ended) break;
      await sleep(50);
    }
    throw new Error(`no answer to GET ${path} (ended: ${this.ended}, error: ${this.error?.code})`);
  }
}

describe('platform start on SIGTERM', () => {
  let child: ChildProcess;
  let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  let stderr = '';
  let port: number;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'ap-shutdown-'));
    port = await freePort();
    child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bin', 'platform.ts'), 'start'], {
      cwd: ROOT,
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        SHUTDOWN_GRACE_MS: String(GRACE_MS),
        HEAVY_WORK_THREADS: '1',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    const bootDeadline = Date.now() + BOOT_CEILING_MS;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`platform start exited with ${child.exitCode}: ${stderr}`);
      const ok = await fetch(`http://127.0.0.1:${port}/ready`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (Date.now() > bootDeadline) throw new Error(`platform start never became ready: ${stderr}`);
      await sleep(250);
    }
  }, BOOT_CEILING_MS + 10_000);

  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('lets the in-flight upload finish, fails readiness at once, answers with Connection: close, and exits 0 within the grace', async () => {
    const base = `http://127.0.0.1:${port}`;
    const client = new HttpClient(base);
    const registered = await client.post('/api/auth/register', {
      email: `shutdown-${randomUUID().slice(0, 8)}@example.com`,
      password: `pw-${randomUUID()}`,
    });
    expect(registered.status).toBe(201);
    const token = registered.body.data.accessToken as string;
    const kb = await client.post('/api/knowledge/kb', { name: 'Shutdown' }, { token });
    expect(kb.status).toBe(201);
    const kbId = kb.body.knowledgeBase.id as string;

    // A keep-alive connection that has served a request and is idle when SIGTERM comes.
    const idle = new RawConnection(port);
    const first = await idle.get('/health');
    expect(first.status).toBe(200);
    expect(first.headers.connection).toBe('keep-alive');

    // The upload: a chunked multipart body, half of it now, the rest once the shutdown is under way.
    const boundary = `----shutdown${randomUUID().replaceAll('-', '')}`;
    const text = Array.from({ length: 2000 }, (_, i) => `Line ${i}: the platform drains its connections before it exits.`).join('\n');
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="drain.txt"\r\nContent-Type: text/plain\r\n\r\n`;
    const tail = `\r\n--${boundary}--\r\n`;
    const half = Math.floor(text.length / 2);
    const upload = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: `/api/knowledge/kb/${kbId}/documents`,
      agent: new http.Agent({ keepAlive: true }),
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'transfer-encoding': 'chunked',
      },
    });
    const uploadError: Error[] = [];
    upload.on('error', (e) => uploadError.push(e));
    const answered = once(upload, 'response') as Promise<[http.IncomingMessage]>;
    upload.write(head + text.slice(0, half));
    await sleep(500); // the gateway has the first half on its way to the api

    child.kill('SIGTERM');
    const termAt = Date.now();

    // Readiness fails at once, on a new connection, and the answer closes that connection.
    let ready: Response | null = null;
    for (let i = 0; i < 100 && ready?.status !== 503; i++) {
      ready = await fetch(`${base}/ready`).catch(() => null);
      if (ready?.status !== 503) await sleep(50);
    }
    expect(ready?.status).toBe(503);
    expect(ready?.headers.get('connection')).toBe('close');
    expect(child.exitCode).toBeNull(); // still draining: the upload is in flight

    // The idle keep-alive connection: closed by the server without a reset, or its next answer says close.
    if (idle.ended) {
      expect(idle.error).toBeNull();
    } else {
      const next = await idle.get('/health');
      expect(next.headers.connection).toBe('close');
      expect(idle.error).toBeNull();
    }

    // The rest of the body: the in-flight upload completes, answered with Connection: close.
    upload.end(text.slice(half) + tail);
    const [res] = await within(GRACE_MS, 'the upload answer', answered);
    let body = '';
    for await (const chunk of res) body += chunk;
    expect(uploadError).toEqual([]);
    expect(res.statusCode).toBe(201);
    expect(res.headers.connection).toBe('close');
    expect(JSON.parse(body)).toMatchObject({ document: { id: expect.any(String) }, jobId: expect.any(String) });

    const { code, signal } = await within(GRACE_MS + 5_000, 'the exit', exited);
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(Date.now() - termAt).toBeLessThan(GRACE_MS);
    expect(stderr).toMatch(/SIGTERM: shutting down/);
    expect(stderr).toMatch(/shutdown complete in \d+ ms/);
  });
});
