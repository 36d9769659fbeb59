/** A TCP proxy on 127.0.0.1 in front of a peer that counts the connections made to it: "nothing reached the peer". */
import { connect, createServer, type Socket } from 'node:net';

export interface CountingProxy {
  /** `http://127.0.0.1:<port>`, to use instead of the peer's base URL. */
  url: string;
  /** Connections accepted so far. */
  readonly connections: number;
  close(): Promise<void>;
}

export async function startCountingProxy(target: string): Promise<CountingProxy> {
  const { hostname, port } = new URL(target);
  let connections = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    connections++;
    const upstream = connect(Number(port), hostname);
    for (const s of [socket, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined).on('close', () => sockets.delete(s));
    }
    socket.pipe(upstream).pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    get connections() {
      return connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
