/**
 * The `platform` binary's admin commands, run as child processes against a temporary DATA_DIR (the embedded
 * database), with their effects read back through the same composition root.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { loadConfig } from '../../app/configuration';
import { createContainer, SERVICES } from '../../app/container';
import { buildInfrastructure, type Infrastructure } from '../../app/infrastructure';
import type { Services } from '../../app/services';
import { startWorkers } from '../../app/workers';
import type { Actor } from '../../core/identity/actor';
import { uploadDocument } from '../../core/knowledge/documents';
import { createKnowledgeBase } from '../../core/knowledge/knowledge-bases';

const root = join(__dirname, '..', '..');
const dataDir = mkdtempSync(join(tmpdir(), 'ap-cli-'));
const env = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}
const platform = (...args: string[]) =>
  new Promise<Run>((resolve) => {
    execFile(join(root, 'node_modules', '.bin', 'tsx'), ['bin/platform.ts', ...args], { cwd: root, env }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });

/** The same store the commands used, opened in this process (the embedded database allows one process at a time). */
async function withPlatform<T>(fn: (infra: Infrastructure, services: Services) => Promise<T>): Promise<T> {
  const config = loadConfig('migrate', { DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  const infra = await buildInfrastructure(config, () => undefined);
  try {
    return await fn(infra, createContainer(infra).get<Services>(SERVICES));
  } finally {
    await infra.close();
  }
}

describe('platform CLI', () => {
  it('prints help with exit code 0, for the binary and every admin command', async () => {
    const help = await platform('--help');
    expect(help.code).toBe(0);
    for (const name of ['create-superadmin', 'top-up', 'list-organizations', 'reindex', 'migrate']) expect(help.stdout).toContain(name);
    const each = await Promise.all(
      ['create-superadmin', 'top-up', 'list-organizations', 'reindex', 'migrate'].map((c) => platform(c, '--help')),
    );
    for (const r of each) expect(r).toMatchObject({ code: 0, stdout: expect.stringContaining('usage: platform ') });
    expect(each[1]!.stdout).toContain('--credits');
  });

  it('refuses a missing option with exit code 2 and the usage', async () => {
    const r = await platform('top-up', '--organization', 'x');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('missing --credits');
  });

  it('migrates, creates a superadmin, lists organizations and tops one up', async () => {
    expect((await platform('migrate')).code).toBe(0);
    const created = await platform('create-superadmin', '--email', 'Root@Example.com', '--password', 'correct-horse-battery-staple-9');
    expect(created).toMatchObject({ code: 0, stdout: expect.stringContaining('created superadmin root@example.com') });

    const listed = await platform('list-organizations', '--json');
    expect(listed.code).toBe(0);
    const { organizations, total } = JSON.parse(listed.stdout) as { organizations: { id: string }[]; total: number };
    expect(total).toBe(1);
    const orgId = organizations[0]!.id;

    expect(await platform('top-up', '--organization', orgId, '--credits', '10')).toMatchObject({ code: 0 });
    const unknown = await platform('top-up', '--organization', '00000000-0000-4000-8000-000000000000', '--credits', '1');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Organization not found');

    await withPlatform(async (infra, services) => {
      const user = await infra.store.repos.users.findByEmail('root@example.com');
      expect(user?.platformRole).toBe('superadmin');
      expect(await services.identity.passwords.verify('correct-horse-battery-staple-9', user!.passwordHash!)).toBe(true);
      const wallet = await infra.store.repos.wallets.find(orgId);
      expect(wallet?.balanceUsd).toBeCloseTo(services.identity.settings.initialCreditsUsd + 10);
    });

    // Again for the same email: promoted (not duplicated), with the new password.
    const again = await platform('create-superadmin', '--email', 'root@example.com', '--password', 'another-long-password-42');
    expect(again).toMatchObject({ code: 0, stdout: expect.stringContaining('promoted') });
    expect(JSON.parse((await platform('list-organizations', '--json')).stdout).total).toBe(1);
  });

  it('re-indexes every document of a knowledge base through the job queue', async () => {
    const { kbId, docId, firstJob } = await withPlatform(async (infra, services) => {
      const user = (await infra.store.repos.users.findByEmail('root@example.com'))!;
      const [membership] = await infra.store.repos.memberships.listForUser(user.id);
      const actor: Actor = { ...user, userId: user.id, organizationId: membership!.organizationId, orgRole: 'owner' };
      const kb = await createKnowledgeBase(services.knowledge, actor, { name: 'Handbook' });
      const workers = await startWorkers(createContainer(infra));
      const up = await uploadDocument(services.knowledge, actor, kb.id, {
        filename: 'hours.txt',
        bytes: Buffer.from('The office opens at nine and closes at five.'),
      });
      for (
        let job = await infra.store.repos.jobs.find(up.jobId);
        job?.status !== 'completed';
        job = await infra.store.repos.jobs.find(up.jobId)
      ) {
        if (job?.status === 'failed') throw new Error('setup ingestion failed');
        await new Promise((r) => setTimeout(r, 100));
      }
      await workers.close();
      return { kbId: kb.id, docId: up.document.id, firstJob: up.jobId };
    });

    const r = await platform('reindex', '--knowledge-base', kbId);
    expect(r.stderr).toBe('');
    expect(r).toMatchObject({ code: 0, stdout: expect.stringContaining('queued 1 document(s)') });
    expect(r.stdout).toContain('processed 1 document(s), 0 failed');

    await withPlatform(async (infra) => {
      const orgId = (await infra.store.repos.knowledgeBases.findAnyById(kbId))!.organizationId;
      const doc = (await infra.store.repos.documents.findById(orgId, docId))!;
      expect(doc.jobId).not.toBe(firstJob);
      expect(doc.processingStatus).toBe('completed');
      expect((await infra.store.repos.jobs.find(doc.jobId!))?.status).toBe('completed');
    });

    expect((await platform('reindex', '--knowledge-base', '00000000-0000-4000-8000-000000000000')).code).toBe(1);
  });
});
