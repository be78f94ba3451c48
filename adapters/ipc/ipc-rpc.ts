import { DomainError, type ErrorCode } from '../../core/shared/errors';

/** One end of a Node IPC channel: `process` in a forked child, the ChildProcess in its parent. */
export interface IpcPort {
  /** With a callback a failed send (the other end gone) is reported there, not as an 'error' event. */
  send?(message: unknown, sendHandle?: undefined, options?: undefined, callback?: (error: Error | null) => void): boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  off(event: 'message', listener: (message: unknown) => void): unknown;
}

interface CallMessage {
  ipc: 'call';
  id: number;
  method: string;
  args: unknown[];
}
interface ResultMessage {
  ipc: 'result';
  id: number;
  value?: unknown;
  error?: { message: string; code?: string };
}
/** A bus event the primary relays to a replica. */
export interface EventMessage {
  ipc: 'event';
  topic: string;
  payload: unknown;
}

export type IpcMethods = Record<string, (...args: never[]) => Promise<unknown>>;

/** A send whose failure needs no handling (the other end is gone, and with it whoever waited). */
export const ignore = () => undefined;

const isMessage = <T extends { ipc: string }>(m: unknown, kind: T['ipc']): m is T =>
  typeof m === 'object' && m !== null && (m as { ipc?: unknown }).ipc === kind;

/**
 * Answers the calls that arrive on `port` with `methods`; a DomainError keeps its code on the way back.
 * Returns the function that stops answering.
 */
export function serveCalls(port: IpcPort, methods: IpcMethods): () => void {
  const onMessage = (m: unknown) => {
    if (!isMessage<CallMessage>(m, 'call')) return;
    const method = Object.hasOwn(methods, m.method) ? methods[m.method] : undefined;
    const answer = (reply: Omit<ResultMessage, 'ipc' | 'id'>) => {
      try {
        port.send?.({ ipc: 'result', id: m.id, ...reply }, undefined, undefined, ignore);
      } catch {
        // The other end is gone: nobody waits for this answer any more.
      }
    };
    if (!method) return answer({ error: { message: `unknown ipc method ${m.method}` } });
    Promise.resolve()
      .then(() => (method as (...a: unknown[]) => Promise<unknown>)(...m.args))
      .then(
        (value) => answer({ value }),
        (e: unknown) => answer({ error: { message: e instanceof Error ? e.message : String(e), code: (e as DomainError).code } }),
      );
  };
  port.on('message', onMessage);
  return () => port.off('message', onMessage);
}

/** Calls the methods the other end serves; every pending call fails once the channel is closed. */
export class IpcClient {
  private next = 1;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private closed = false;

  constructor(private readonly port: IpcPort) {
    port.on('message', (m) => {
      if (!isMessage<ResultMessage>(m, 'result')) return;
      const waiting = this.pending.get(m.id);
      if (!waiting) return;
      this.pending.delete(m.id);
      if (!m.error) return waiting.resolve(m.value);
      const code = m.error.code as ErrorCode | undefined;
      waiting.reject(code ? new DomainError(code, m.error.message) : new Error(m.error.message));
    });
  }

  call<T>(method: string, ...args: unknown[]): Promise<T> {
    if (this.closed || !this.port.send) return Promise.reject(new Error('the primary process is not reachable'));
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      const failed = (e: Error | null) => {
        if (!e || !this.pending.delete(id)) return;
        reject(e);
      };
      try {
        this.port.send!({ ipc: 'call', id, method, args } satisfies CallMessage, undefined, undefined, failed);
      } catch (e) {
        failed(e as Error);
      }
    });
  }

  /** The channel is gone (the primary exited): fails what is pending and every later call. */
  close(): void {
    this.closed = true;
    for (const p of this.pending.values()) p.reject(new Error('the primary process is not reachable'));
    this.pending.clear();
  }
}

export const isEventMessage = (m: unknown): m is EventMessage => isMessage<EventMessage>(m, 'event');
