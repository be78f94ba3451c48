/**
 * Every port chosen by configuration. Adding a port: its registry file in this folder and one line here;
 * adding an adapter: its folder under adapters/ and one entry in its port's `adapters`.
 */
import { blobStorePort } from './blob-store.port';
import { chatPort } from './chat.port';
import { graphStorePort } from './graph-store.port';
import { heavyWorkPort } from './heavy-work.port';
import { embeddingsPort, rerankPort, speechPort, transcriptionPort, visionPort } from './model-capabilities.port';
import { nonceRegistryPort } from './nonce-registry.port';
import type { PlatformPort } from './platform-port';
import { queuePort } from './queue.port';
import { rateLimitStorePort } from './rate-limit-store.port';
import { vectorIndexPort } from './vector-index.port';

export const platformPorts: readonly PlatformPort[] = [
  vectorIndexPort,
  graphStorePort,
  blobStorePort,
  queuePort,
  rateLimitStorePort,
  nonceRegistryPort,
  chatPort,
  embeddingsPort,
  rerankPort,
  visionPort,
  transcriptionPort,
  speechPort,
  heavyWorkPort,
];
