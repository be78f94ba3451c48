/**
 * A TCP forwarder on 127.0.0.1 in front of a server of this machine (RabbitMQ, Postgres), standing for that server
 * going away without touching the shared server itself: `shut()` drops every open connection and refuses new ones,
 * `open()` listens again on the same port, so the URL the platform was given stays valid.
 */
import net from 'node:net';

export class TcpProxy {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  /** Chosen at the first `open()`, kept afterwards. */
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async open(): Promise<void> {
    if (this.server) return;
    const server = net.createServer((client) => {
      const upstream = net.connect(this.target.port, this.target.host);
      const pair = [client, upstream];
      for (const s of pair) {
        this.sockets.add(s);
        // One side gone (a reset included, which pipe does not pass on) closes the other, as a direct connection
        // would: a SIGKILLed client's connection must not live on towards the server.
        s.on('close', () => {
          this.sockets.delete(s);
          for (const other of pair) other.destroy();
        });
        s.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', resolve);
    });
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  async shut(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const s of this.sockets) s.destroy();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  }
}
