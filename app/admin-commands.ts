/**
 * Admin commands of the `platform` binary for self-hosters: the same composition root and core use cases as
 * the API (no raw SQL), against the configured stores (by default the embedded database under DATA_DIR; stop
 * a running `platform start` first, as the embedded database belongs to one process: against a data folder in
 * use a command exits 1 with "the data folder is in use by process N" and writes nothing).
 */
import { parseArgs } from 'node:util';

import { DataFolderInUseError } from '../adapters/postgres/embedded/data-folder-claim';
import { topUp } from '../core/billing/billing';
import { ensureSuperadmin } from '../core/identity/superadmin';
import { isTerminal } from '../core/jobs/job';
import { reindexKnowledgeBase } from '../core/knowledge/documents';
import { loadConfig } from './configuration';
import { createContainer, INFRASTRUCTURE, SERVICES } from './container';
import { buildInfrastructure, type Infrastructure } from './infrastructure';
import { createLogger } from './logger';
import type { Services } from './services';
import { startWorkers } from './workers';

type Options = Record<string, string | undefined>;
interface AdminCommand {
  summary: string;
  usage: string;
  options: Record<string, { description: string; required?: boolean }>;
  run(ctx: { infra: Infrastructure; services: Services; options: Options; out: (line: string) => void }): Promise<void>;
}

const positiveNumber = (value: string | undefined, name: string) => {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--${name} must be a number greater than 0`);
  return n;
};

export class UsageError extends Error {}

export const ADMIN_COMMANDS: Record<string, AdminCommand> = {
  'create-superadmin': {
    summary: 'create a platform administrator, or promote an existing account (its password is replaced)',
    usage: 'platform create-superadmin --email <email> --password <password>',
    options: {
      email: { description: 'email address of the account', required: true },
      password: { description: 'its password (the password policy applies)', required: true },
    },
    async run({ infra, services, options, out }) {
      const r = await ensureSuperadmin(services.identity, infra.store.repos, { email: options.email!, password: options.password! });
      out(`${r.created ? 'created' : 'promoted'} superadmin ${r.email} (user ${r.userId})`);
    },
  },
  'top-up': {
    summary: "add credits (USD) to an organization's wallet",
    usage: 'platform top-up --organization <id> --credits <usd>',
    options: {
      organization: { description: 'organization id', required: true },
      credits: { description: 'amount in USD to add', required: true },
    },
    async run({ services, options, out }) {
      const r = await topUp(services.billing, options.organization!, positiveNumber(options.credits, 'credits'));
      out(`organization ${r.organizationId}: balance ${r.balance} ${r.currency}`);
    },
  },
  'list-organizations': {
    summary: 'list every organization (id, slug, name, created)',
    usage: 'platform list-organizations [--json]',
    options: { json: { description: 'print JSON instead of a table' } },
    async run({ infra, options, out }) {
      const { items, total } = await infra.store.repos.organizations.list({ limit: 10_000, offset: 0 });
      if (options.json !== undefined) return out(JSON.stringify({ organizations: items, total }, null, 2));
      for (const o of items) out(`${o.id}\t${o.slug}\t${o.name}\t${o.createdAt}`);
      out(`${total} organization${total === 1 ? '' : 's'}`);
    },
  },
  reindex: {
    summary: 'queue every document of a knowledge base for processing again (through the job queue)',
    usage: 'platform reindex --knowledge-base <id>',
    options: { 'knowledge-base': { description: 'knowledge base id', required: true } },
    async run({ infra, services, options, out }) {
      // An in-process queue lives in this process: run the jobs here before exiting, or they would be lost.
      const local = infra.queue.id === 'in-process' ? await startWorkers(createContainer(infra)) : null;
      try {
        const r = await reindexKnowledgeBase(services.knowledge, options['knowledge-base']!);
        out(`queued ${r.queued.length} document(s) of knowledge base ${r.knowledgeBaseId}; ${r.skipped} already pending or processing`);
        if (!local) return;
        let failed = 0;
        for (const { jobId } of r.queued) {
          for (;;) {
            const job = await infra.store.repos.jobs.find(jobId);
            if (!job || isTerminal(job.status)) {
              if (job?.status === 'failed') failed++;
              break;
            }
            await new Promise((resolve) => setTimeout(resolve, 200));
          }
        }
        out(`processed ${r.queued.length - failed} document(s), ${failed} failed`);
      } finally {
        await local?.close();
      }
    },
  },
};

export function commandHelp(name: string): string {
  const c = ADMIN_COMMANDS[name]!;
  const lines = Object.entries(c.options).map(([o, d]) => `  --${o.padEnd(16)} ${d.description}${d.required ? ' (required)' : ''}`);
  return `usage: ${c.usage}\n\n${c.summary}\n\noptions:\n${lines.join('\n')}\n  --help             this text`;
}

/** Runs one admin command; returns the process exit code (0 ok, 1 failure, 2 usage error). */
export async function runAdminCommand(name: string, argv: string[], io = { out: (s: string) => void process.stdout.write(`${s}\n`) }) {
  const command = ADMIN_COMMANDS[name]!;
  const err = (s: string) => void process.stderr.write(`${s}\n`);
  let options: Options;
  try {
    const parsed = parseArgs({
      args: argv,
      options: {
        help: { type: 'boolean' },
        ...Object.fromEntries(Object.keys(command.options).map((o) => [o, { type: o === 'json' ? 'boolean' : 'string' } as const])),
      },
      strict: true,
    });
    if (parsed.values.help) {
      io.out(commandHelp(name));
      return 0;
    }
    options = Object.fromEntries(Object.entries(parsed.values).map(([k, v]) => [k, typeof v === 'string' ? v : v ? '' : undefined]));
    const missing = Object.entries(command.options).filter(([o, d]) => d.required && !options[o]);
    if (missing.length) throw new UsageError(`missing ${missing.map(([o]) => `--${o}`).join(', ')}`);
  } catch (e) {
    err(`${name}: ${(e as Error).message}\n\n${commandHelp(name)}`);
    return 2;
  }
  const config = loadConfig('migrate');
  let infra: Infrastructure;
  try {
    infra = await buildInfrastructure(config, createLogger(config.logLevel));
  } catch (e) {
    if (!(e instanceof DataFolderInUseError)) throw e;
    err(`${name}: failed: ${e.message}`);
    return 1;
  }
  const container = createContainer(infra);
  try {
    await command.run({ infra: container.get(INFRASTRUCTURE), services: container.get(SERVICES), options, out: io.out });
    return 0;
  } catch (e) {
    err(`${name}: ${e instanceof UsageError ? '' : 'failed: '}${(e as Error).message}`);
    return e instanceof UsageError ? 2 : 1;
  } finally {
    await infra.close();
  }
}
