// Standard output and error as the CLI writes them: a reader that goes away (`ratefile build --dry-run | head -1`) ends the output quietly.
import type { Writable } from 'node:stream';

const handled = new WeakSet<Writable>();

/**
 * Node ignores SIGPIPE, so a write to a pipe whose reader has closed fails with EPIPE, and an 'error'
 * event nobody listens to kills the process with a stack trace. Here EPIPE only ends the stream: later
 * writes go nowhere and the command finishes with its own exit code, as `head` expects of a producer.
 * Any other error still ends the process as before. Once per stream, however often the CLI runs.
 */
export function endQuietlyOnClosedPipe<T extends Writable>(stream: T): T {
  if (handled.has(stream)) return stream;
  handled.add(stream);
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') return;
    process.nextTick(() => {
      throw error;
    });
  });
  return stream;
}
