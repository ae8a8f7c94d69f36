// The tools of the warm standby's pause trials (test/sql/ha-pause.measure.ts): a shim that pauses a process inside
// the rename of one export (after its last lock check, before the file lands: a VM freeze, a stop, a slow disk
// there), and an S3 proxy that holds one upload of a paused instance until it resumes.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Compiles test/sql/pause-rename.c into `dir` (gcc): an LD_PRELOAD library whose `rename` of a file named
 * `PAUSE_RENAME_FILE` sleeps `PAUSE_RENAME_MS` first, once each time the file `PAUSE_RENAME_FLAG` is created (it
 * removes the flag and creates `<flag>.entered` as it starts to sleep). Node's renameSync calls libc's rename on the
 * main thread, so the whole event loop waits there, as in a freeze.
 */
export function buildPauseShim(dir: string): string {
  const source = fileURLToPath(new URL('./pause-rename.c', import.meta.url));
  const library = join(dir, 'pause-rename.so');
  const built = spawnSync('gcc', ['-shared', '-fPIC', '-O2', '-o', library, source, '-ldl'], { encoding: 'utf8' });
  if (built.status !== 0 || !existsSync(library))
    throw new Error(`cannot build the pause shim (gcc): ${built.stderr || built.error?.message}`);
  return library;
}

/** One request the proxy forwarded, with the store's answer. */
export interface Forwarded {
  at: number;
  method: string;
  path: string;
  status: number;
  body: Buffer;
  held: boolean;
}

export interface HoldingProxy {
  endpoint: string;
  forwarded: Forwarded[];
  /**
   * The next PUT whose path ends in `suffix` is held: `onHeld` runs as it arrives (stop the instance), and after
   * `ms` it is sent on and `onRelease` runs (let the instance go on).
   */
  holdNext(suffix: string, ms: number, onHeld: () => void, onRelease: () => void): void;
  close(): Promise<void>;
}

async function bodyOf(incoming: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A loopback HTTP proxy in front of an S3 store: every request sent on with its headers (the signature holds). */
export async function startHoldingProxy(target: string): Promise<HoldingProxy> {
  const upstream = new URL(target);
  const forwarded: Forwarded[] = [];
  let armed: { suffix: string; ms: number; onHeld: () => void; onRelease: () => void } | undefined;
  const server: Server = createServer(async (incoming, answer) => {
    const body = await bodyOf(incoming);
    const path = incoming.url ?? '/';
    const hold = armed && incoming.method === 'PUT' && path.split('?')[0]!.endsWith(armed.suffix) ? armed : undefined;
    if (hold) {
      armed = undefined;
      hold.onHeld();
      await new Promise((resolve) => setTimeout(resolve, hold.ms));
    }
    // Expect is never signed; the body is whole here, so it goes with its length.
    const { expect: _, 'transfer-encoding': __, ...headers } = incoming.headers;
    const sent = request(
      { host: upstream.hostname, port: upstream.port, method: incoming.method, path, headers },
      (reply) => {
        void bodyOf(reply).then((bytes) => {
          forwarded.push({
            at: Date.now(),
            method: incoming.method ?? '',
            path,
            status: reply.statusCode ?? 0,
            body: incoming.method === 'PUT' ? body : Buffer.alloc(0),
            held: hold !== undefined,
          });
          answer.writeHead(reply.statusCode ?? 502, reply.headers);
          answer.end(bytes);
        });
      },
    );
    sent.on('error', () => answer.destroy());
    sent.end(body);
    if (hold) hold.onRelease();
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    forwarded,
    holdNext: (suffix, ms, onHeld, onRelease) => {
      armed = { suffix, ms, onHeld, onRelease };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
