// Issue 45, item 7: a PostgreSQL lock session whose set-up query misses its deadline is reported as that (the query
// and the deadline), not as "PostgreSQL 14 or later is needed"; only the server's own answer that it does not know
// idle_session_timeout (SQLSTATE 42704, PostgreSQL 13 and older) is. The server is a loopback stand-in speaking the
// PostgreSQL wire protocol (startup, then one answer per query as the test says); the real servers run in
// `npm run test:sql`.
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { lockStore } from '../../../src/io/ha/lock.js';
import { lockTiming } from '../../../src/pure/ha/role.js';

/** One message of the backend: its type byte, then its length (itself included) and its body. */
function message(type: string, body: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}
const int32 = (value: number) => {
  const bytes = Buffer.alloc(4);
  bytes.writeInt32BE(value);
  return bytes;
};
const text = (value: string) => Buffer.from(`${value}\0`, 'utf8');
const ready = message('Z', Buffer.from('I'));

/** How the stand-in answers a simple query: its text in, the bytes to send out (undefined: never answer). */
type Answer = (query: string) => Buffer | undefined;

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A PostgreSQL 15 stand-in on loopback: trusts every login, then answers each query as `answer` says. */
async function standIn(answer: Answer): Promise<{ port: number; queries: string[] }> {
  const queries: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let pending = Buffer.alloc(0);
    let started = false;
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        // The startup message has no type byte; every later message has one.
        const offset = started ? 1 : 0;
        if (pending.length < offset + 4) return;
        const length = pending.readInt32BE(offset);
        if (pending.length < offset + length) return;
        const whole = pending.subarray(0, offset + length);
        pending = pending.subarray(offset + length);
        if (!started) {
          started = true;
          socket.write(
            Buffer.concat([
              message('R', int32(0)),
              message('S', Buffer.concat([text('server_version'), text('15.8')])),
              message('K', Buffer.concat([int32(1), int32(2)])),
              ready,
            ]),
          );
        } else if (whole[0] === 0x51) {
          const query = whole.subarray(5, whole.length - 1).toString('utf8');
          queries.push(query);
          const out = answer(query);
          if (out) socket.write(out);
        }
      }
    });
  });
  servers.push(server);
  server.on('close', () => {
    for (const socket of sockets) socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { port: typeof address === 'object' && address ? address.port : 0, queries };
}

const done = (tag: string) => Buffer.concat([message('C', text(tag)), ready]);
const error = (code: string, words: string) =>
  Buffer.concat([
    message(
      'E',
      Buffer.concat([
        Buffer.from('S'),
        text('ERROR'),
        Buffer.from('C'),
        text(code),
        Buffer.from('M'),
        text(words),
        Buffer.from([0]),
      ]),
    ),
    ready,
  ]);

/** What opening a lock session on the stand-in says, in the words `ha:` logs. */
async function openFails(port: number): Promise<string> {
  // A period of 1 s: the lock queries' deadline is its floor, 500 ms.
  const timing = lockTiming(1_000);
  expect(timing.queryTimeoutMs).toBe(500);
  const store = lockStore('URL', { URL: `postgres://locker:pw@127.0.0.1:${port}/lockdb` }, 'setup', timing);
  return store.open().then(
    (session) => {
      session.close();
      return 'opened';
    },
    (failure: unknown) => store.describe(failure),
  );
}

it('a set-up query past its deadline names the query and the deadline, not the server version', async () => {
  // PostgreSQL 15 knows the setting; it only answers too late (a loaded server, a slow link).
  const server = await standIn((query) => (query.startsWith('SET idle_session_timeout') ? undefined : done('SET')));
  const said = await openFails(server.port);
  expect(said).toBe('setting idle_session_timeout took longer than 500 ms');
  expect(said).not.toContain('14 or later');
  expect(server.queries).toEqual(['SET idle_session_timeout = 1000']);
});

it("the server's own answer that it does not know idle_session_timeout is the version problem, in its words", async () => {
  const server = await standIn((query) =>
    query.startsWith('SET idle_session_timeout')
      ? error('42704', 'unrecognized configuration parameter "idle_session_timeout"')
      : done('SET'),
  );
  expect(await openFails(server.port)).toBe(
    'PostgreSQL 14 or later is needed (idle_session_timeout); the server answered: unrecognized configuration parameter "idle_session_timeout"',
  );
});

it('any other answer of the server is given as it is', async () => {
  const server = await standIn((query) =>
    query.startsWith('SET idle_session_timeout')
      ? error('42501', 'permission denied to set parameter "idle_session_timeout"')
      : done('SET'),
  );
  expect(await openFails(server.port)).toBe('permission denied to set parameter "idle_session_timeout"');
});

it('a later set-up query past its deadline is named too', async () => {
  const server = await standIn((query) => (query.startsWith('SET statement_timeout') ? undefined : done('SET')));
  expect(await openFails(server.port)).toBe('setting statement_timeout took longer than 500 ms');
});
