// nginx's access log read incrementally: from the offset reached last time (kept in the state folder across restarts),
// complete lines only, each at most MAX_LINE long, at most MAX_READ bytes a call. A rotated log (a new file under the
// name) is finished through the descriptor still open, then the new one read from its start; a truncated one
// (copytruncate: shorter than the offset, or no newline where the last line ended) is read again from its start. A first start reads only the last INITIAL_TAIL bytes.
import type { FileHandle } from 'node:fs/promises';
import { open, stat } from 'node:fs/promises';
import { MAX_LINE } from '../../pure/readers/combined.js';

/** Where reading stopped: the file's identity and the offset after the last complete line. */
export interface LogPosition {
  dev: number;
  ino: number;
  offset: number;
}

export const MAX_READ = 4 * 1024 * 1024;
export const INITIAL_TAIL = 1024 * 1024;
const CHUNK = 64 * 1024;

export class AccessLogReader {
  private handle: FileHandle | undefined;
  private identity: { dev: number; ino: number } | undefined;
  /** Offset of the next byte to read, and the bytes read after the last newline (a line being written). */
  private offset = 0;
  private partial: Buffer[] = [];
  private partialLength = 0;
  /** Inside a line longer than MAX_LINE: its bytes are dropped up to its newline. */
  private skipping = false;
  /** Lines dropped for their length since the start. */
  overlong = 0;

  constructor(
    readonly path: string,
    private saved?: LogPosition,
  ) {}

  /** The position to save: after the last complete line read (a line being written is read again next time). */
  position(): LogPosition | undefined {
    if (!this.identity) return this.saved;
    return { ...this.identity, offset: this.offset - this.partialLength };
  }

  /** Reads the lines added since the last call; throws when the log cannot be opened or read (ENOENT included). */
  async read(onLine: (line: string) => void): Promise<void> {
    let budget = MAX_READ;
    if (!this.handle) await this.openLog(true);
    const handle = this.handle!;
    budget -= await this.drain(handle, budget, onLine);
    const now = await stat(this.path).catch(() => undefined);
    if (now && (now.ino !== this.identity?.ino || now.dev !== this.identity?.dev) && budget > 0) {
      // Rotated: what nginx wrote to the old file before reopening is read first, then the new file from its start.
      budget -= await this.drain(handle, budget, onLine);
      if ((await handle.stat()).size > this.offset) return;
      await handle.close();
      this.handle = undefined;
      this.saved = undefined;
      await this.openLog(false);
      await this.drain(this.handle!, budget, onLine);
    }
  }

  async close(): Promise<void> {
    await this.handle?.close();
    this.handle = undefined;
  }

  private async openLog(first: boolean): Promise<void> {
    const handle = await open(this.path, 'r');
    const info = await handle.stat();
    this.handle = handle;
    this.identity = { dev: info.dev, ino: info.ino };
    this.partial = [];
    this.partialLength = 0;
    const saved = this.saved;
    if (saved && saved.dev === info.dev && saved.ino === info.ino && saved.offset <= info.size) {
      this.offset = saved.offset;
      this.skipping = false;
    } else if (first && !saved) {
      // Never read before: only the recent past, from the first whole line in it.
      this.offset = Math.max(0, info.size - INITIAL_TAIL);
      this.skipping = this.offset > 0;
    } else {
      this.offset = 0;
      this.skipping = false;
    }
  }

  /** Reads from the offset to the end (at most `budget` bytes); returns the bytes read. */
  private async drain(handle: FileHandle, budget: number, onLine: (line: string) => void): Promise<number> {
    const { size } = await handle.stat();
    if (size < this.offset || !(await this.atLineEnd(handle))) {
      // Truncated in place: everything in it is new.
      this.offset = 0;
      this.partial = [];
      this.partialLength = 0;
      this.skipping = false;
    }
    let read = 0;
    const buffer = Buffer.alloc(CHUNK);
    while (read < budget) {
      const { bytesRead } = await handle.read(buffer, 0, Math.min(CHUNK, budget - read), this.offset);
      if (bytesRead === 0) break;
      this.offset += bytesRead;
      read += bytesRead;
      this.split(buffer.subarray(0, bytesRead), onLine);
    }
    return read;
  }

  /** Whether the byte before the last complete line's end is still a newline: not, when the log was truncated and written past it. */
  private async atLineEnd(handle: FileHandle): Promise<boolean> {
    const end = this.offset - this.partialLength;
    if (end === 0 || this.skipping) return true;
    const byte = Buffer.alloc(1);
    const { bytesRead } = await handle.read(byte, 0, 1, end - 1);
    return bytesRead === 1 && byte[0] === 10;
  }

  private split(chunk: Buffer, onLine: (line: string) => void): void {
    let start = 0;
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, newline);
      if (this.skipping) this.skipping = false;
      else if (this.partialLength + piece.length > MAX_LINE) this.overlong += 1;
      else onLine(Buffer.concat([...this.partial, piece]).toString('utf8'));
      this.partial = [];
      this.partialLength = 0;
      start = newline + 1;
    }
    const rest = chunk.subarray(start);
    if (rest.length === 0 || this.skipping) return;
    if (this.partialLength + rest.length > MAX_LINE) {
      this.overlong += 1;
      this.skipping = true;
      this.partial = [];
      this.partialLength = 0;
      return;
    }
    // Copied: the read buffer is reused.
    this.partial.push(Buffer.from(rest));
    this.partialLength += rest.length;
  }
}
