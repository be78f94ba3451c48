export { PlatformClient } from './client';
export { Http, type HttpOptions, memorySessionStore, PlatformError, readSse, type SessionStore, type SseFrame } from './http';
export type * from './types';
