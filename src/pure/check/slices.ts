// An export file's bytes as text a slice at a time, for the scanner (simple.ts): slices of about 64 KiB, each cut
// right after an `</item>` and decoded on its own, so a big file is never held as one string beside its bytes. A cut
// after `>` (one ASCII byte) never falls inside a UTF-8 character. Also a character index of the whole text as a line
// and column, exactly as `positions` gives them for the whole text. Pure.
import { Buffer } from 'node:buffer';
import { decodeStrict } from './decode.js';
import { positions } from './findings.js';

/**
 * About how many bytes a slice holds (one item more at most): big enough that a slice costs nothing, and its text
 * below V8's large-object size (128 KB), so each slice is born and dies in the young generation. Slices of a mebibyte
 * would each land in the large-object space, which only full collections free: a 40 MB file's dead slices piled up
 * there before one ran, adding about 45 MB to the peak at 50,000 directions instead of 9.
 */
export const sliceBytes = 1 << 16;

const itemEnd = '</item>';
const newline = 10;

interface Slice {
  /** Where it starts in the bytes and in the text (UTF-16 code units). */
  byte: number;
  char: number;
  /** Characters on its first line before it: the column of its first character, less 1. */
  column: number;
  /** Line ends before it; undefined until a finding asks (0 for the first). */
  lines?: number;
}

export class TextSlices {
  private readonly bytes: Buffer;
  private readonly slices: Slice[] = [];
  private text = '';
  /** The current slice's lines and columns; another, earlier slice's when a finding asks for one (rare). */
  private at = positions('');
  private earlier: { slice: number; at: (index: number) => { line: number; column: number } } | undefined;
  private next = 0;
  /** Set when a slice is not UTF-8: the caller then reads the file whole, which reports it. */
  invalid = false;

  /** `body`: the file's bytes after any byte order mark. */
  constructor(
    body: Uint8Array,
    private readonly size = sliceBytes,
  ) {
    this.bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  }

  /** Slices read so far. */
  get count(): number {
    return this.slices.length;
  }

  /** The next slice's text; undefined at the end, or when it is not UTF-8 (`invalid`). */
  read(): string | undefined {
    const bytes = this.bytes;
    const start = this.next;
    if (start >= bytes.length || this.invalid) return undefined;
    const found = bytes.indexOf(itemEnd, start + Math.max(this.size - itemEnd.length, 0), 'latin1');
    const end = found === -1 ? bytes.length : found + itemEnd.length;
    let text: string;
    try {
      text = decodeStrict(bytes.subarray(start, end));
    } catch {
      this.invalid = true;
      return undefined;
    }
    const previous = this.slices[this.slices.length - 1];
    if (previous) {
      const lineEnd = this.text.lastIndexOf('\n');
      const column = lineEnd === -1 ? previous.column + this.text.length : this.text.length - lineEnd - 1;
      this.slices.push({ byte: start, char: previous.char + this.text.length, column });
    } else this.slices.push({ byte: 0, char: 0, column: 0, lines: 0 });
    this.next = end;
    this.text = text;
    this.at = positions(text);
    return text;
  }

  /** Line and column (1-based) of character `index` of the whole text, in the current slice or one before it. */
  position(index: number): { line: number; column: number } {
    const slices = this.slices;
    let s = slices.length - 1;
    while (s > 0 && slices[s]!.char > index) s -= 1;
    const slice = slices[s];
    if (slice === undefined) return { line: 1, column: index + 1 };
    let at = this.at;
    if (s !== slices.length - 1) {
      if (this.earlier?.slice !== s) {
        const end = slices[s + 1]!.byte;
        this.earlier = { slice: s, at: positions(decodeStrict(this.bytes.subarray(slice.byte, end))) };
      }
      at = this.earlier.at;
    }
    const local = at(index - slice.char);
    return {
      line: this.linesBefore(s) + local.line,
      column: local.line === 1 ? slice.column + local.column : local.column,
    };
  }

  /** Line ends in the bytes before slice `s`, counted from the last slice counted (`\n` is one byte in UTF-8). */
  private linesBefore(s: number): number {
    const slices = this.slices;
    let known = s;
    while (slices[known]!.lines === undefined) known -= 1;
    for (let k = known + 1; k <= s; k++) {
      let lines = slices[k - 1]!.lines!;
      const end = slices[k]!.byte;
      for (
        let i = this.bytes.indexOf(newline, slices[k - 1]!.byte);
        i !== -1 && i < end;
        i = this.bytes.indexOf(newline, i + 1)
      )
        lines += 1;
      slices[k]!.lines = lines;
    }
    return slices[s]!.lines!;
  }
}
