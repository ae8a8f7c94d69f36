// The XML text the XML formats share (classic.ts, eref.ts): the declaration, the empty file, element text escaped
// or refused, and the byte sink a file is written into chunk by chunk. Pure.
import { RatefileError } from '../../base/errors.js';

export const declaration = '<?xml version="1.0" encoding="UTF-8"?>\n';

/** The file of an export with no items: `<rates></rates>`, which naive monitor parsers handle better than `<rates/>`. */
export const emptyExport = () => Buffer.from(`${declaration}<rates></rates>\n`, 'utf8');

/** Characters outside the XML 1.0 `Char` production: C0 controls but tab/LF/CR, lone surrogates, U+FFFE/U+FFFF. */
const forbidden = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
/**
 * What makes a value need a closer look: markup to escape, or a character that may be forbidden (any surrogate,
 * paired or not, and U+FFFE/U+FFFF). One test per value; most values have none of these.
 */
const special = /[&<>\x00-\x08\x0B\x0C\x0E-\x1F\uD800-\uDFFF\uFFFE\uFFFF]/;

/** A value as element text; undefined when it holds a character XML 1.0 forbids. */
export function elementText(value: string): string | undefined {
  if (!special.test(value)) return value;
  if (forbidden.test(value)) return undefined;
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The error for item `index` (from 0) of `file` whose element `name` holds a character XML 1.0 forbids. */
export function refusal(file: string, index: number, name: string): RatefileError {
  return new RatefileError(
    'E_RENDER',
    `${file}: cannot render: item ${index + 1} <${name}> has a character XML 1.0 forbids`,
  );
}

/**
 * Items joined per chunk: about 50 KB of text, below V8's large-object size (128 KB), so each chunk string is born
 * and dies in the young generation. A chunk in the large-object space counts toward the old generation and sets off
 * full collections of the whole heap, which at 50,000 directions would cost more than the writing itself.
 */
export const chunkItems = 128;

/** An ArrayBuffer that grows in place (ES2024's resizable kind, beyond this project's ES2023 types). */
export interface GrowableMemory extends ArrayBuffer {
  readonly maxByteLength: number;
  resize(byteLength: number): void;
}
const Growable = ArrayBuffer as unknown as new (length: number, options: { maxByteLength: number }) => GrowableMemory;

/** Address space a sink reserves (not memory: pages are taken as the file grows); far above any export. */
const reservedBytes = 2 ** 31;

/** Growable memory, or undefined where the address space cannot be reserved (a tight `ulimit -v`). */
function growable(): GrowableMemory | undefined {
  try {
    return new Growable(0, { maxByteLength: reservedBytes });
  } catch {
    return undefined;
  }
}

/**
 * A file that stays under this many bytes is written into a buffer from malloc: reserving growable memory and
 * giving it back costs each file a few system calls (about a millisecond for each export of a 1,000-direction
 * build), more than glibc can keep of a file this small. A file that outgrows it moves into growable memory once.
 */
export const smallFileBytes = 2 ** 20;

/**
 * The file's bytes, written chunk by chunk into one buffer sized from the first chunk's bytes per share of the work,
 * so a 20 MB export is not also held as a list of chunks and then copied into one. Past `smallFileBytes` the buffer
 * is growable memory: V8 maps it itself, grows it without a copy and unmaps it whole once the file is let go. A
 * buffer from malloc would, once freed, stay with glibc (it raises its mmap threshold after the first large free,
 * and keeps the next builds' buffers in arenas it does not give back): 50 to 115 MB of the peak at 50,000 to
 * 100,000 directions.
 */
export class ByteSink {
  /** Where the bytes grow once the file is past `small`; buffers from malloc without it (or once outgrown). */
  private memory: GrowableMemory | undefined;
  private reserved = false;

  /** `reserve`: the memory to grow in (tests give a small one, or none); `small`: the bytes kept in malloc's buffers. */
  constructor(
    private readonly reserve: () => GrowableMemory | undefined = growable,
    private readonly small = smallFileBytes,
  ) {}

  private buffer: Buffer = Buffer.alloc(0);
  private length = 0;

  /** `done`: the share of the whole file's work done once `text` is written (0 < done ≤ 1), to size the buffer. */
  write(text: string, done: number): void {
    const size = Buffer.byteLength(text, 'utf8');
    if (this.length + size > this.buffer.length) {
      // A tenth more than the rate so far predicts, and never less than an eighth again what is needed now (so a
      // prediction that keeps falling short still costs few copies). Half again, as this once was, made the file
      // that outgrew its first prediction late the largest of its buffers, and then copied it out to drop the slack.
      this.grow(
        Math.max(
          Math.ceil(((this.length + size) / Math.max(done, 1e-6)) * 1.1) + 64,
          Math.ceil((this.length + size) * 1.125),
        ),
      );
    }
    this.length += this.buffer.write(text, this.length, 'utf8');
  }

  private grow(wanted: number): void {
    if (!this.reserved && wanted > this.small) {
      // Once, the first time the file is no longer small: the bytes so far move into the growable memory.
      this.reserved = true;
      this.memory = this.reserve();
      if (this.memory && wanted <= this.memory.maxByteLength) {
        this.memory.resize(wanted);
        const moved = Buffer.from(this.memory, 0, wanted);
        this.buffer.copy(moved, 0, 0, this.length);
        this.buffer = moved;
        return;
      }
    }
    if (this.memory && wanted <= this.memory.maxByteLength) {
      this.memory.resize(wanted);
      this.buffer = Buffer.from(this.memory, 0, wanted);
      return;
    }
    const grown = Buffer.allocUnsafe(wanted);
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
    this.memory = undefined;
  }

  /** The bytes written, without slack: growable memory shrinks to them, a malloc'd buffer that overshot is copied. */
  bytes(): Buffer {
    if (this.memory) {
      this.memory.resize(this.length);
      return Buffer.from(this.memory, 0, this.length);
    }
    const written = this.buffer.subarray(0, this.length);
    return this.buffer.length > this.length * 1.25 + 4096 ? Buffer.from(written) : written;
  }
}
