/**
 * The HTTP server under every local stand-in for an AWS service that has no peer of its own (aws-json-stub.ts,
 * aws-query-stub.ts, sesv2-stub.ts): on 127.0.0.1, a free port, each request's whole body read before `answer` is
 * asked; `close` ends open connections too, so a test's afterAll never waits on a kept-alive SDK socket.
 */
import { createServer, type IncomingMessage } from 'node:http';

export interface StubReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface StubServer {
  url: string;
  close(): Promise<void>;
}

export async function startStubServer(
  answer: (req: IncomingMessage, body: Buffer) => StubReply | Promise<StubReply>,
): Promise<StubServer> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      Promise.resolve(answer(req, Buffer.concat(chunks))).then(
        (reply) => res.writeHead(reply.status, reply.headers).end(reply.body),
        (e: Error) => res.writeHead(500, { 'Content-Type': 'text/plain' }).end(`stub failed: ${e.message}`),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
