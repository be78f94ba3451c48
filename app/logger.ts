import pino, { type DestinationStream } from 'pino';

import type { PlatformConfig } from '../adapters/config/platform-config';
import { currentRequestContext } from '../adapters/observability/request-context';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type Logger = (level: LogLevel, message: string, extra?: unknown) => void;

/**
 * One JSON line per event (pino; stderr unless a destination is given). Each line carries the request id, and
 * inside a job the job id and queue, of the work it belongs to (adapters/observability/request-context.ts).
 * A plain object's fields go on the line; an Error becomes `error` (and its `code`), with the `stack` only on
 * warn and error lines (an expected failure, such as a file that cannot be parsed, is not a bug to trace);
 * anything else goes under `extra`.
 */
export function createLogger(level: PlatformConfig['logLevel'], destination?: DestinationStream): Logger {
  const logger = pino(
    {
      level,
      base: undefined,
      messageKey: 'message',
      timestamp: () => `,"t":"${new Date().toISOString()}"`,
      formatters: { level: (label) => ({ level: label }) },
      mixin: () => ({ ...currentRequestContext() }),
    },
    destination ?? pino.destination({ fd: 2, sync: true }),
  );
  return (l, message, extra) => {
    if (!logger.isLevelEnabled(l)) return;
    if (extra === undefined) logger[l](message);
    else if (extra instanceof Error) logger[l](errorFields(l, extra), message);
    else if (isPlainObject(extra)) logger[l](extra, message);
    else logger[l]({ extra }, message);
  };
}

function errorFields(level: LogLevel, error: Error): Record<string, unknown> {
  const code = (error as { code?: unknown }).code;
  return {
    error: error.message,
    ...(typeof code === 'string' ? { code } : {}),
    ...(level === 'warn' || level === 'error' ? { stack: error.stack } : {}),
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}
