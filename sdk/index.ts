export { createPlatformApi, type PlatformApi, unwrap } from './api';
export { PlatformClient } from './client';
export { Http, type HttpOptions, memorySessionStore, PlatformError, readSse, type SessionStore, type SseFrame } from './http';
export type { components, operations, paths } from './schema';
export type * from './types';
