import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import YAML from 'yaml';

import { platformConfigSchema } from '../../app/configuration';

/**
 * The Helm chart and graceful shutdown (docs/contracts.md "Delivery guarantees": in-flight requests and streams finish within
 * SHUTDOWN_GRACE_MS): the HTTP roles sleep in preStop (so load balancers stop routing before SIGTERM) and the kubelet's
 * grace period outlasts the sleep plus the drain plus the few seconds the process gets to close its stores, or its
 * SIGKILL would cut the requests still finishing. Helm is not installed here: the values and templates are read.
 */
const chartDir = join(__dirname, '..', '..', 'charts', 'agent-platform');
const values = YAML.parse(readFileSync(join(chartDir, 'values.yaml'), 'utf8')) as Record<string, any>;
const template = (role: string) => readFileSync(join(chartDir, 'templates', `${role}-deployment.yaml`), 'utf8');
/** bin/platform.ts: how long past SHUTDOWN_GRACE_MS the stores get to close before the process exits anyway. */
const OVERRUN_SECONDS = 5;

const graceMs = Number(values.config.SHUTDOWN_GRACE_MS);

it('sets SHUTDOWN_GRACE_MS to the default of the configuration schema', () => {
  expect((platformConfigSchema().properties as Record<string, { default?: unknown }>).SHUTDOWN_GRACE_MS?.default).toBe(25_000);
  expect(graceMs).toBe(25_000);
});

it.each(['gateway', 'api'])('%s: sleeps in preStop, and its grace period outlasts the sleep plus the drain', (role) => {
  const { preStopSleepSeconds, terminationGracePeriodSeconds } = values[role] as Record<string, number>;
  expect(preStopSleepSeconds).toBeGreaterThan(0);
  expect(terminationGracePeriodSeconds).toBeGreaterThan(preStopSleepSeconds + graceMs / 1000 + OVERRUN_SECONDS);
  const text = template(role);
  expect(text).toContain(`terminationGracePeriodSeconds: {{ .Values.${role}.terminationGracePeriodSeconds }}`);
  expect(text).toMatch(
    new RegExp(`preStop:\\s+exec:\\s+command: \\["sleep", "\\{\\{ \\.Values\\.${role}\\.preStopSleepSeconds \\}\\}"\\]`),
  );
  // A values override that breaks the rule fails the render instead of shipping a grace the kubelet cuts short.
  expect(text).toContain('$drainSeconds := div (int (default "25000" .Values.config.SHUTDOWN_GRACE_MS)) 1000');
  expect(text).toContain(
    `if le (int .Values.${role}.terminationGracePeriodSeconds) (add (int .Values.${role}.preStopSleepSeconds) $drainSeconds)`,
  );
  expect(text).toContain(`fail "${role}.terminationGracePeriodSeconds must exceed`);
});

it('worker: its grace period outlasts the drain (running jobs go back to the queue if they do not finish)', () => {
  expect(values.worker.terminationGracePeriodSeconds).toBeGreaterThan(graceMs / 1000 + OVERRUN_SECONDS);
});
