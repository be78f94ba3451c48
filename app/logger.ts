import type { PlatformConfig } from '../adapters/config/platform-config';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type Logger = (level: LogLevel, message: string, extra?: unknown) => void;

const order: Record<LogLevel | 'silent', number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

/** One JSON line per event on stderr. */
export function createLogger(level: PlatformConfig['logLevel']): Logger {
  return (l, message, extra) => {
    if (order[l] < order[level]) return;
    const detail = extra instanceof Error ? { error: extra.message, stack: extra.stack } : extra !== undefined ? { extra } : {};
    process.stderr.write(`${JSON.stringify({ t: new Date().toISOString(), level: l, message, ...detail })}\n`);
  };
}
