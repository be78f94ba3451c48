import type { Request, Response } from 'express';

/**
 * Server-sent events on an Express response: headers that keep proxies from buffering, flushed at once, then
 * one `data: <json>` frame per write, each written straight to the socket.
 */
export class SseWriter {
  private opened = false;

  constructor(private readonly res: Response) {}

  /** Status 200 and the SSE headers, flushed before the first frame. */
  open(extraHeaders: Record<string, string> = {}) {
    if (this.opened) return;
    this.opened = true;
    this.res.status(200);
    // setHeader, not res.set: Express would append a charset to the content type.
    const headers: Record<string, string> = {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
      ...extraHeaders,
    };
    for (const [name, value] of Object.entries(headers)) this.res.setHeader(name, value);
    this.res.flushHeaders();
    this.res.socket?.setNoDelay(true);
  }

  get isOpen() {
    return this.opened;
  }

  /** True once the client went away (writes are then dropped). */
  get closed() {
    return this.res.destroyed || this.res.writableEnded;
  }

  /** `data: <json>\n\n`; resolves when the frame is handed to the socket (waits on backpressure). */
  send(data: unknown): Promise<void> {
    return this.raw(`data: ${JSON.stringify(data)}\n\n`);
  }

  raw(frame: string): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.res.write(frame)) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.once('drain', done);
      this.res.once('close', done);
    });
  }

  end() {
    if (!this.closed) this.res.end();
  }
}

/** An AbortSignal that fires when the client disconnects before the response is finished. */
export function abortOnDisconnect(req: Request, res: Response): AbortSignal {
  const controller = new AbortController();
  const onClose = () => {
    if (!res.writableFinished) controller.abort(new Error('client disconnected'));
  };
  res.once('close', onClose);
  req.once('aborted', onClose);
  return controller.signal;
}
