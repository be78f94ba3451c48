import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { CLAIM_FILE, claimDataFolder, DataFolderInUseError } from './data-folder-claim';

describe('claim of the embedded data folder', () => {
  let dir: string;
  const file = () => join(dir, CLAIM_FILE);
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'ap-claim-unit-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes this pid, refuses a second claim while held (even in this process), and removes the file on release', () => {
    const claim = claimDataFolder(dir);
    expect(readFileSync(file(), 'utf8').split('\n')[0]).toBe(String(process.pid));
    expect(() => claimDataFolder(dir)).toThrow(new DataFolderInUseError(dir, process.pid));
    expect(() => claimDataFolder(dir)).toThrow(`the data folder is in use by process ${process.pid}`);
    claim.release();
    claim.release();
    expect(existsSync(file())).toBe(false);
    claimDataFolder(dir).release();
  });

  it('refuses a second copy of the module in this same process (same pid, same start time)', () => {
    const claim = claimDataFolder(dir);
    jest.isolateModules(() => {
      const other = jest.requireActual<typeof import('./data-folder-claim')>('./data-folder-claim');
      expect(() => other.claimDataFolder(dir)).toThrow(`the data folder is in use by process ${process.pid}`);
    });
    claim.release();
    expect(existsSync(file())).toBe(false);
  });

  it('refuses while another live process holds it, naming that process', async () => {
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      writeFileSync(file(), `${other.pid}\n`);
      expect(() => claimDataFolder(dir)).toThrow(`the data folder is in use by process ${other.pid}`);
      expect(readFileSync(file(), 'utf8')).toBe(`${other.pid}\n`);
    } finally {
      other.kill('SIGKILL');
      await new Promise((resolve) => other.once('exit', resolve));
    }
    // Gone now: the claim is stale.
    const claim = claimDataFolder(dir);
    expect(readFileSync(file(), 'utf8').split('\n')[0]).toBe(String(process.pid));
    claim.release();
  });

  it.each([
    ['a process that has exited', () => `${spawnSync(process.execPath, ['-e', '0']).pid}\n`],
    ['this pid with another start time (a restarted container init)', () => `${process.pid}\nstarted 1\n`],
    ['this pid, start time unknown', () => `${process.pid}\n`],
    ['a live pid whose start time differs (the pid was reused)', () => `${process.ppid}\nstarted 1\n`],
    ['an unreadable claim, written a while ago', () => 'not a pid'],
  ])('takes over a stale claim: %s', (_what, content) => {
    writeFileSync(file(), content());
    const aMinuteAgo = new Date(Date.now() - 60_000);
    utimesSync(file(), aMinuteAgo, aMinuteAgo);
    const claim = claimDataFolder(dir);
    expect(readFileSync(file(), 'utf8').split('\n')[0]).toBe(String(process.pid));
    claim.release();
    expect(existsSync(file())).toBe(false);
  });

  it('lets exactly one of several processes racing for the same stale claim win', async () => {
    writeFileSync(file(), `${spawnSync(process.execPath, ['-e', '0']).pid}\n`);
    // Each child loads the module, then waits for the same instant to claim (as close a race as processes
    // allow); the winner holds the claim until its stdin closes, so a late starter cannot win after it.
    const script = `const { claimDataFolder } = require(${JSON.stringify(join(__dirname, 'data-folder-claim.ts'))});
      const [dir, at] = process.argv.slice(1); while (Date.now() < Number(at));
      try { claimDataFolder(dir); process.stdout.write('won'); process.stdin.resume(); process.stdin.on('end', () => process.exit(0)); }
      catch (e) { process.stdout.write(e.name); }`;
    const at = Date.now() + 2000;
    const children = Array.from({ length: 4 }, () => spawn(process.execPath, ['--import', 'tsx', '-e', script, dir, String(at)]));
    const exits = children.map((child) => new Promise((resolve) => child.once('exit', resolve)));
    const outcomes = await Promise.all(
      children.map((child) => new Promise<string>((resolve) => child.stdout.once('data', (c: Buffer) => resolve(c.toString())))),
    );
    for (const child of children) child.stdin.end();
    await Promise.all(exits);
    expect(outcomes.filter((o) => o === 'won')).toEqual(['won']);
    expect(outcomes.filter((o) => o !== 'won')).toEqual(Array(3).fill('DataFolderInUseError'));
    // The winner exited without releasing: its exit hook removed the claim.
    expect(existsSync(file())).toBe(false);
  });

  it('leaves a claim that is no longer its own in place on release', () => {
    const claim = claimDataFolder(dir);
    writeFileSync(file(), '1\n');
    claim.release();
    expect(readFileSync(file(), 'utf8')).toBe('1\n');
  });
});
