// The bytes of an export file as text: UTF-8 only, a byte order mark tolerated with a warning.
import { Buffer, isAscii } from 'node:buffer';
import type { Finding } from './findings.js';

export interface Decoded {
  /** The text without a byte order mark; undefined when the bytes are not UTF-8. */
  text?: string;
  findings: Finding[];
}

// Validation and decoding in one native pass; the byte loop below only runs to locate an error.
const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * UTF-8 text, or throws. ASCII bytes (most export files) are checked and copied as they are, more than twice as
 * fast as the decoder takes them; for ASCII, Node's 'ascii' decoding is exact.
 */
export function decodeStrict(bytes: Uint8Array): string {
  return isAscii(bytes)
    ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('ascii')
    : strict.decode(bytes);
}

/** Offset of the first byte that is not part of valid UTF-8, or -1; slow, for the error message only. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const byte = bytes[i]!;
    const [length, low, high] =
      byte < 0x80
        ? [1, 0, 0]
        : byte >= 0xc2 && byte <= 0xdf
          ? [2, 0x80, 0xbf]
          : byte === 0xe0
            ? [3, 0xa0, 0xbf]
            : byte === 0xed
              ? [3, 0x80, 0x9f]
              : byte >= 0xe1 && byte <= 0xef
                ? [3, 0x80, 0xbf]
                : byte === 0xf0
                  ? [4, 0x90, 0xbf]
                  : byte >= 0xf1 && byte <= 0xf3
                    ? [4, 0x80, 0xbf]
                    : byte === 0xf4
                      ? [4, 0x80, 0x8f]
                      : [0, 0, 0];
    if (length === 0) return i;
    for (let k = 1; k < length; k++) {
      const next = bytes[i + k];
      // The second byte has the narrowed range (overlongs, surrogates, > U+10FFFF); the rest are plain continuations.
      const [min, max] = k === 1 ? [low, high] : [0x80, 0xbf];
      if (next === undefined || next < min || next > max) return i;
    }
    i += length;
  }
  return -1;
}

export const isUtf16 = (bytes: Uint8Array): boolean =>
  (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
export const hasBom = (bytes: Uint8Array): boolean => bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;

export const bomWarning = (): Finding => ({
  severity: 'warning',
  rule: 'encoding',
  message: 'the file starts with a byte order mark; some monitors fail on it',
  line: 1,
  column: 1,
});

/**
 * The line and column of byte `offset` of `body` (valid UTF-8 before it), as `positions` gives them for the decoded
 * text before it, without decoding more than the offset's own line: lines are counted in the bytes (`\n` is one
 * byte), the column in the characters of its line.
 */
function bytePosition(body: Uint8Array, offset: number): { line: number; column: number } {
  const bytes = Buffer.from(body.buffer, body.byteOffset, offset);
  let line = 1;
  let start = 0;
  for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) {
    line += 1;
    start = i + 1;
  }
  // The whole text's decoder drops a byte order mark at its start only.
  const decoder = new TextDecoder('utf-8', { ignoreBOM: start > 0 });
  return { line, column: decoder.decode(bytes.subarray(start)).length + 1 };
}

/** Decode an export file; UTF-16 and bytes that are not UTF-8 are findings, with no text. */
export function decodeExport(bytes: Uint8Array): Decoded {
  if (isUtf16(bytes)) {
    return {
      findings: [
        {
          severity: 'error',
          rule: 'encoding',
          message: 'the file is UTF-16; the standard requires UTF-8',
          line: 1,
          column: 1,
        },
      ],
    };
  }
  const bom = hasBom(bytes);
  const body = bom ? bytes.subarray(3) : bytes;
  let text: string;
  try {
    text = decodeStrict(body);
  } catch {
    const invalid = firstInvalidUtf8(body);
    // The decoder and the loop implement the same definition; should they ever disagree, decode leniently as before.
    if (invalid === -1) text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(body);
    else {
      const where = bytePosition(body, invalid);
      return {
        findings: [
          {
            severity: 'error',
            rule: 'encoding',
            message: `not valid UTF-8 at byte ${invalid + (bom ? 3 : 0)} (the standard requires UTF-8)`,
            ...where,
          },
        ],
      };
    }
  }
  const findings: Finding[] = [];
  if (bom) findings.push(bomWarning());
  return { text, findings };
}
