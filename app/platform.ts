import type { PlatformConfig } from '../adapters/config/platform-config';
import { createContainer } from './container';
import { buildInfrastructure, type InfrastructureOverrides } from './infrastructure';
import { createLogger } from './logger';
import { startApi, startGateway, startWorkers } from './roles';

export interface RunningPlatform {
  gatewayUrl: string;
  apiUrl: string;
  close(): Promise<void>;
}

/** The `start` role: gateway, api and worker in one process; the api listens on loopback only. */
export async function startPlatform(config: PlatformConfig, overrides: InfrastructureOverrides = {}): Promise<RunningPlatform> {
  const log = createLogger(config.logLevel);
  const infra = await buildInfrastructure(config, log, overrides);
  const container = createContainer(infra);
  const api = await startApi(container, config.role === 'start' ? 0 : config.api.port, '127.0.0.1');
  const gateway = await startGateway(container, { host: '127.0.0.1', port: api.address.port }, config.gateway.port, config.gateway.host);
  const workers = await startWorkers(container);
  const host = gateway.address.address.includes(':') ? `[${gateway.address.address}]` : gateway.address.address;
  return {
    gatewayUrl: `http://${host}:${gateway.address.port}`,
    apiUrl: `http://127.0.0.1:${api.address.port}`,
    close: async () => {
      await gateway.close();
      await api.close();
      await workers.close();
      await infra.close();
    },
  };
}
