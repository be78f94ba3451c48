#!/usr/bin/env -S npx tsx
import { ADMIN_COMMANDS, runAdminCommand } from '../app/admin-commands';
import { ConfigError, loadConfig, type Role } from '../app/configuration';
import { createContainer } from '../app/container';
import { startEmailListener } from '../app/email-listener';
import { buildInfrastructure } from '../app/infrastructure';
import { createLogger } from '../app/logger';
import { startPlatform } from '../app/platform';
import { DataFolderInUseError, migrateDatabase, startApi, startGateway, startWorkers } from '../app/roles';

const ROLES: Role[] = ['start', 'gateway', 'api', 'worker', 'migrate'];
/** How long past SHUTDOWN_GRACE_MS the stores get to close before the process exits anyway (with 1). */
const SHUTDOWN_OVERRUN_MS = 5000;
const usage = `usage: platform <${ROLES.join('|')}>
  start    gateway + api + worker in one process, embedded defaults (PGlite under DATA_DIR)
  gateway  the edge (PORT); needs API_URL, JWT_SECRET, INTERNAL_SECRET, DATABASE_URL
  api      the backend HTTP API (API_PORT)
  worker   background jobs
  migrate  apply database migrations and exit

admin commands (each takes --help):
${Object.entries(ADMIN_COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(19)}${c.summary}`)
  .join('\n')}

Configuration comes from the environment (DATA_DIR, DATABASE_URL, ...); see the README.`;

async function main() {
  const role = process.argv[2] as Role;
  if (['--help', '-h', 'help'].includes(process.argv[2] ?? '')) {
    process.stdout.write(`${usage}\n`);
    return;
  }
  if (ADMIN_COMMANDS[process.argv[2] ?? '']) {
    process.exitCode = await runAdminCommand(process.argv[2]!, process.argv.slice(3));
    return;
  }
  if (role === 'migrate' && ['--help', '-h'].includes(process.argv[3] ?? '')) {
    process.stdout.write('usage: platform migrate\n\napply the database migrations of the configured store and exit\n');
    return;
  }
  if (!ROLES.includes(role)) {
    process.stderr.write(`${usage}\n`);
    process.exit(2);
  }
  const config = loadConfig(role);
  const log = createLogger(config.logLevel);
  /** Run in order at shutdown; each server lets its in-flight requests run until `deadline` (ms since the epoch). */
  const stops: ((deadline: number) => Promise<void>)[] = [];
  /** Run first, all at once: readiness fails and answers say Connection: close before anything is stopped. */
  const begins: (() => void)[] = [];

  if (role === 'migrate') {
    await migrateDatabase(config, log);
    return;
  }
  if (role === 'start') {
    const platform = await startPlatform(config);
    stops.push((deadline) => platform.close(deadline));
    const processes = config.httpProcesses > 1 ? `; ${config.httpProcesses} processes serve HTTP` : '';
    log('info', `Agent Platform listening on ${platform.gatewayUrl} (docs: ${platform.gatewayUrl}/api/docs${processes})`);
  } else {
    const infra = await buildInfrastructure(config, log);
    const container = createContainer(infra);
    stops.push(() => infra.close());
    if (role === 'api') {
      const api = await startApi(container, config.api.port, config.api.host);
      stops.unshift((deadline) => api.close(deadline));
      begins.push(() => api.beginClose());
      log('info', `api listening on ${config.api.host}:${api.address.port}`);
      const smtp = await startEmailListener(container);
      if (smtp) stops.unshift(() => smtp.close());
    } else if (role === 'gateway') {
      const target = new URL(config.api.url!);
      const gw = await startGateway(
        container,
        { host: target.hostname, port: Number(target.port || 80) },
        config.gateway.port,
        config.gateway.host,
      );
      stops.unshift((deadline) => gw.close(deadline));
      begins.push(() => gw.beginClose());
      log('info', `gateway listening on ${config.gateway.host}:${gw.address.port} → ${config.api.url}`);
    } else {
      const workers = await startWorkers(container);
      stops.unshift(() => workers.close());
      log('info', 'worker running');
    }
  }
  let stopping = false;
  // docs/contracts.md "Delivery guarantees": readiness fails at once, in-flight requests and streams finish within
  // SHUTDOWN_GRACE_MS, then the process exits. A step that hangs past the grace (a store that does not close)
  // does not keep it alive for good.
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const started = Date.now();
    const deadline = started + config.shutdownGraceMs;
    log('info', `${signal}: shutting down (in-flight requests may run for up to ${config.shutdownGraceMs} ms)`);
    setTimeout(() => {
      log('error', `shutdown did not finish within ${config.shutdownGraceMs + SHUTDOWN_OVERRUN_MS} ms; exiting`);
      process.exit(1);
    }, config.shutdownGraceMs + SHUTDOWN_OVERRUN_MS).unref();
    for (const b of begins) b();
    for (const s of stops) await s(deadline).catch((e) => log('error', 'shutdown step failed', e));
    log('info', `shutdown complete in ${Date.now() - started} ms`);
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((e) => {
  if (e instanceof ConfigError || e instanceof DataFolderInUseError) {
    process.stderr.write(`${e.message}\n`);
    process.exit(1);
  }
  process.stderr.write(`fatal: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
