// Reading a file someone else names (the config, a template, a quotes file): only a regular file, opened without
// blocking, so a FIFO, a device or a directory in its place is refused at once instead of hanging the process.
import { constants, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';

/** What a path holds when it is not a regular file, in words. */
export function fileKind(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  return 'not a file';
}

/** Thrown for a path that exists but is not a regular file; `message` is "not a regular file: a FIFO (named pipe)". */
export class NotRegularFileError extends Error {
  readonly code = 'ENOTREG';
  constructor(
    readonly path: string,
    readonly kind: string,
  ) {
    super(`not a regular file: ${kind}`);
  }
}

/**
 * The text of a regular file and its stats from the same open. O_NONBLOCK makes opening a FIFO return at once
 * (a blocking open waits for a writer, forever, in a thread of the pool); it changes nothing for a regular file.
 * The check is on the opened file (fstat), so a path swapped between a check and the open cannot slip through.
 * A file larger than `maxBytes` is refused unread.
 */
export async function readRegularFile(
  path: string,
  maxBytes = Number.POSITIVE_INFINITY,
): Promise<{ text: string; stats: Stats }> {
  const { bytes, stats } = await readRegularBytes(path, maxBytes);
  return { text: bytes.toString('utf8'), stats };
}

/** `readRegularFile`'s bytes, undecoded: for a reader that checks the encoding itself (an export file). */
export async function readRegularBytes(
  path: string,
  maxBytes = Number.POSITIVE_INFINITY,
): Promise<{ bytes: Buffer; stats: Stats }> {
  const handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new NotRegularFileError(path, fileKind(stats));
    // Bounded before reading: a runaway writer's gigabyte must not be read into memory.
    if (stats.size > maxBytes) throw new Error(`${stats.size} bytes, more than the ${maxBytes} allowed`);
    return { bytes: await handle.readFile(), stats };
  } finally {
    await handle.close();
  }
}
