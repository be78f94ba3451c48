import { loadConfig } from '../../app/configuration';

/**
 * The `start` configuration every platform benchmark runs: a fresh DATA_DIR, any free port, warnings only, and
 * rate limits out of the way (the load is the measurement, not abuse). `extra` adds or overrides keys.
 */
export const benchConfig = (dataDir: string, extra: Record<string, string> = {}) =>
  loadConfig('start', {
    DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_IP: '100000000',
    RATE_LIMIT_PER_PRINCIPAL: '100000000',
    ...extra,
  });
