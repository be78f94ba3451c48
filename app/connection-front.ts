import net, { type AddressInfo, type Socket } from 'node:net';

/** Takes one accepted connection; false when it cannot (its process is gone), so the next one is tried. */
export type ConnectionTaker = (socket: Socket) => boolean;

export interface ConnectionFront {
  address: AddressInfo;
  /** Shares the connections accepted from now on with `taker`, in turn with the others. */
  add(taker: ConnectionTaker): void;
  remove(taker: ConnectionTaker): void;
  /** Stops accepting; the connections already handed out are their gateways' to close. */
  close(): Promise<void>;
}

/**
 * The public port of a `start` with HTTP replicas: this process accepts every connection and hands them out
 * in turn to its own gateway and to each replica's (as node's cluster does), so a replica's share does not
 * depend on which process the kernel wakes first. A connection is handed over before a byte of it is read.
 */
export async function openConnectionFront(port: number, host: string, local: (socket: Socket) => void): Promise<ConnectionFront> {
  const takers: ConnectionTaker[] = [
    (socket) => {
      local(socket);
      return true;
    },
  ];
  let turn = 0;
  const server = net.createServer({ pauseOnConnect: true, noDelay: true }, (socket) => {
    for (let tried = 0; tried < takers.length; tried++) {
      const taker = takers[turn++ % takers.length]!;
      if (taker(socket)) return;
    }
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    address: server.address() as AddressInfo,
    add: (taker) => void takers.push(taker),
    remove: (taker) => {
      const i = takers.indexOf(taker);
      if (i > 0) takers.splice(i, 1);
    },
    // Not waiting for 'close': it comes only once the connections this process kept have ended.
    close: async () => void server.close(),
  };
}

/** Gives an accepted (paused) connection to an http server of this process. */
export function acceptInto(server: { emit(event: 'connection', socket: Socket): boolean }, socket: Socket): void {
  server.emit('connection', socket);
  socket.resume();
}
