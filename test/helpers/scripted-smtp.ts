/**
 * A minimal SMTP server on 127.0.0.1 whose answers a test scripts: refuse the recipient, refuse the message after
 * DATA, or drop the connection once the whole message has arrived (the one case where the sender cannot know
 * whether it was delivered). Plain TCP, no PIPELINING, no STARTTLS, so nodemailer walks through every step.
 */
import { createServer, type Socket } from 'node:net';

export interface SmtpScript {
  /** Reply to RCPT TO. @default '250 OK' */
  rcpt?: string;
  /** Reply after the message's final `.`, or 'drop' to close the connection without one. @default '250 queued' */
  afterData?: string | 'drop';
}

export interface ScriptedSmtp {
  host: string;
  port: number;
  /** Messages that arrived whole (their final `.` was read), whatever was answered. */
  received: number;
  close(): Promise<void>;
}

export async function startScriptedSmtp(script: SmtpScript): Promise<ScriptedSmtp> {
  const sockets = new Set<Socket>();
  const state = { received: 0 };
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffer = '';
    let inData = false;
    const reply = (line: string) => socket.write(`${line}\r\n`);
    reply('220 scripted ESMTP');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('latin1');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          buffer = buffer.slice(end + 5);
          inData = false;
          state.received++;
          if (script.afterData === 'drop') {
            socket.destroy();
            return;
          }
          reply(script.afterData ?? '250 queued');
          continue;
        }
        const eol = buffer.indexOf('\r\n');
        if (eol < 0) return;
        const line = buffer.slice(0, eol);
        buffer = buffer.slice(eol + 2);
        const verb = line.split(' ')[0]!.toUpperCase();
        if (verb === 'EHLO') reply('250 scripted');
        else if (verb === 'RCPT') reply(script.rcpt ?? '250 OK');
        else if (verb === 'DATA') {
          reply('354 go ahead');
          inData = true;
        } else if (verb === 'QUIT') {
          reply('221 bye');
          socket.end();
          return;
        } else reply('250 OK'); // HELO, MAIL, RSET, NOOP
      }
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    host: '127.0.0.1',
    port: address.port,
    get received() {
      return state.received;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((done) => server.close(done));
    },
  };
}
