/** Clients of the job endpoints for the e2e suites: a real EventSource (the `eventsource` package) and raw SSE reads. */
import { EventSource } from 'eventsource';

import type { TestPlatform } from '../support/platform';

export interface ReceivedEvent {
  type: string;
  /** The SSE id (`lastEventId`). */
  id: string;
  data: any;
}

export interface WatchedStream {
  events: ReceivedEvent[];
  /** Request headers of every connection attempt (Last-Event-ID on reconnects). */
  connections: Record<string, string>[];
  source: EventSource;
  /** Ends the current connection as a network drop would; EventSource then reconnects with Last-Event-ID. */
  dropConnection(): void;
  /** Holds the next connection attempts until `release` is called. */
  holdReconnects(): { release(): void };
}

/** Opens `/api/jobs/:jobId/events` through the gateway with a bearer token, recording everything. */
export function watchJob(p: TestPlatform, token: string, jobId: string, path = `/api/jobs/${jobId}/events`): WatchedStream {
  const events: ReceivedEvent[] = [];
  const connections: Record<string, string>[] = [];
  let cut: () => void = () => undefined;
  let gate: Promise<void> | null = null;
  const source = new EventSource(`${p.gatewayUrl}${path}`, {
    fetch: async (input, init) => {
      const headers = { ...(init.headers as Record<string, string>), authorization: `Bearer ${token}` };
      connections.push(headers);
      if (gate) await gate;
      const res = await fetch(input, { ...init, headers });
      if (!res.body) return res;
      // The body passes through a stream this client can end, as when the network drops the connection.
      const reader = res.body.getReader();
      let controller!: ReadableStreamDefaultController<Uint8Array>;
      let ended = false;
      const body = new ReadableStream<Uint8Array>({
        start: (c) => void (controller = c),
        pull: async (c) => {
          const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
          if (ended) return;
          if (done) {
            ended = true;
            c.close();
          } else c.enqueue(value);
        },
        cancel: () => reader.cancel(),
      });
      cut = () => {
        if (ended) return;
        ended = true;
        controller.close();
        void reader.cancel().catch(() => undefined);
      };
      return new Response(body, { status: res.status, headers: res.headers });
    },
  });
  for (const type of ['progress', 'done', 'error']) {
    source.addEventListener(type, (e) => {
      const message = e as MessageEvent;
      if (typeof message.data === 'string') events.push({ type, id: message.lastEventId, data: JSON.parse(message.data) });
    });
  }
  return {
    events,
    connections,
    source,
    dropConnection: () => cut(),
    holdReconnects: () => {
      let release = () => undefined as void;
      gate = new Promise<void>((resolve) => (release = resolve));
      return {
        release: () => {
          gate = null;
          release();
        },
      };
    },
  };
}

/** One plain GET of the stream, read to its end (the server closes after the terminal event). */
export async function readStream(p: TestPlatform, token: string, jobId: string, lastEventId?: string) {
  const res = await fetch(`${p.gatewayUrl}/api/jobs/${jobId}/events`, {
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
  });
  const text = await res.text();
  return { status: res.status, contentType: res.headers.get('content-type'), text, frames: sseFrames(text) };
}

/** The event frames (those with data) of an SSE body. */
export function sseFrames(text: string): { id?: string; event?: string; data: any }[] {
  return text
    .split('\n\n')
    .filter((block) => block.includes('data: '))
    .map((block) => {
      const field = (name: string) =>
        block
          .split('\n')
          .find((l) => l.startsWith(`${name}: `))
          ?.slice(name.length + 2);
      return { id: field('id'), event: field('event'), data: JSON.parse(field('data')!) };
    });
}
