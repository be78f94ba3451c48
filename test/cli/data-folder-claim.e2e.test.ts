/**
 * docs/contracts.md "Delivery guarantees": an admin command against an embedded data folder in use by a running platform
 * exits 1 with "the data folder is in use by process N" and never writes where the running process will not see
 * it. The real binary in child processes: `platform start` on a temporary DATA_DIR, then admin commands (and a
 * second `start`) against the same folder; after the platform stopped, and after it was killed with SIGKILL
 * (a stale claim), the same command goes through.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { loadConfig } from '../../app/configuration';
import { buildInfrastructure } from '../../app/infrastructure';
import { freePort } from '../support/free-port';

const root = join(__dirname, '..', '..');
const dataDir = mkdtempSync(join(tmpdir(), 'ap-claim-'));
const lockFile = join(dataDir, 'platform.pid');
// PORT 0: a second `start` that wrongly came up would not take a fixed port.
const env = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent', PORT: '0' };
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}
/** The binary under node itself (not the tsx wrapper), so the child's pid is the platform's. */
const binary = (args: string[]) => [process.execPath, ['--import', 'tsx', join(root, 'bin', 'platform.ts'), ...args]] as const;
const platform = (...args: string[]) =>
  new Promise<Run>((resolve) => {
    const [cmd, argv] = binary(args);
    execFile(cmd, argv, { cwd: root, env, timeout: 150_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });

interface Running {
  child: ChildProcess;
  exited: Promise<number | null>;
}

async function startPlatform(): Promise<Running> {
  const port = await freePort();
  const [cmd, argv] = binary(['start']);
  const child = spawn(cmd, argv, {
    cwd: root,
    env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  for (let i = 0; i < 900; i++) {
    if (child.exitCode !== null) throw new Error(`platform start exited with ${child.exitCode}: ${stderr}`);
    const ok = await fetch(`http://127.0.0.1:${port}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { child, exited };
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill('SIGKILL');
  throw new Error('platform start never became ready');
}

async function balanceOf(orgId: string): Promise<number> {
  const infra = await buildInfrastructure(loadConfig('migrate', { DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), () => undefined);
  try {
    return (await infra.store.repos.wallets.find(orgId))!.balanceUsd;
  } finally {
    await infra.close();
  }
}

describe('an admin command against a data folder in use', () => {
  let orgId: string;
  let initial: number;

  beforeAll(async () => {
    const created = await platform('create-superadmin', '--email', 'claim@example.com', '--password', 'correct-horse-battery-staple-9');
    expect(created).toMatchObject({ code: 0 });
    const listed = await platform('list-organizations', '--json');
    orgId = (JSON.parse(listed.stdout) as { organizations: { id: string }[] }).organizations[0]!.id;
    initial = await balanceOf(orgId);
    // Every opener above released its claim when it closed.
    expect(existsSync(lockFile)).toBe(false);
  });

  it('exits 1 naming the running process while `platform start` runs, and changes nothing; works once it stopped', async () => {
    const running = await startPlatform();
    try {
      const refused = await platform('top-up', '--organization', orgId, '--credits', '7');
      expect(refused.stdout).toBe('');
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`the data folder is in use by process ${running.child.pid}`);
      expect(readFileSync(lockFile, 'utf8').split('\n')[0]).toBe(String(running.child.pid));
      const listed = await platform('list-organizations');
      expect(listed.code).toBe(1);
      expect(listed.stderr).toContain(`the data folder is in use by process ${running.child.pid}`);
      // A second `start` on the same folder refuses the same way, and leaves the first one's claim alone.
      const second = await platform('start');
      expect(second.code).toBe(1);
      expect(second.stderr).toContain(`the data folder is in use by process ${running.child.pid}`);
      expect(readFileSync(lockFile, 'utf8').split('\n')[0]).toBe(String(running.child.pid));
    } finally {
      running.child.kill('SIGTERM');
      expect(await running.exited).toBe(0);
    }
    expect(existsSync(lockFile)).toBe(false);
    expect(await balanceOf(orgId)).toBeCloseTo(initial);

    const done = await platform('top-up', '--organization', orgId, '--credits', '7');
    expect(done).toMatchObject({ code: 0, stdout: expect.stringContaining('balance') });
    expect(await balanceOf(orgId)).toBeCloseTo(initial + 7);
  });

  it('takes over the claim a platform killed with SIGKILL left behind', async () => {
    const before = await balanceOf(orgId);
    const running = await startPlatform();
    running.child.kill('SIGKILL');
    await running.exited;
    // The killed process could not remove its claim: it names a process that is gone.
    expect(readFileSync(lockFile, 'utf8').split('\n')[0]).toBe(String(running.child.pid));
    const done = await platform('top-up', '--organization', orgId, '--credits', '3');
    expect(done.stderr).toBe('');
    expect(done).toMatchObject({ code: 0, stdout: expect.stringContaining('balance') });
    expect(await balanceOf(orgId)).toBeCloseTo(before + 3);
    expect(existsSync(lockFile)).toBe(false);

    // And `start` itself comes up again over a stale claim.
    const again = await startPlatform();
    again.child.kill('SIGKILL');
    await again.exited;
    const restarted = await startPlatform();
    restarted.child.kill('SIGTERM');
    expect(await restarted.exited).toBe(0);
  });
});
