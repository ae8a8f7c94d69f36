// A record as bytes: its header as one line of canonical JSON, then its blobs back to back, then a newline. The
// header names each blob's length and SHA-256, so a reader knows where the record ends and whether it is whole; a
// record cut short by a crash is told from one that is whole (src/io/archive/files.ts repairs it on open).
import { brotliCompress, brotliDecompress, constants } from 'node:zlib';
import { promisify } from 'node:util';
import {
  canonicalJson,
  headerHash,
  headerProblem,
  type RecordHeader,
  sha256Hex,
  signedText,
  type UnhashedHeader,
} from '../../pure/archive/record.js';
import type { SigningKey } from './key.js';

const compress = promisify(brotliCompress);
const decompress = promisify(brotliDecompress);

/** Brotli at publish's level for `.br` copies: a keyframe of a 3 MB export in about 20 ms. */
const BROTLI = {
  params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_LGWIN]: 22 },
};

/** The largest header read back: a longer first line is no record of ours. */
export const MAX_HEADER_BYTES = 1 << 20;

export const packBlob = (bytes: Buffer | string): Promise<Buffer> =>
  compress(typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes, BROTLI);
export const unpackBlob = (bytes: Buffer): Promise<Buffer> => decompress(bytes);

/** The header hashed and, with a key, signed; the record's bytes. */
export function frameRecord(
  unhashed: Omit<UnhashedHeader, 'blobs' | 'key'>,
  blobs: readonly Buffer[],
  key: SigningKey | undefined,
): { header: RecordHeader; bytes: Buffer } {
  const withBlobs: UnhashedHeader = {
    ...unhashed,
    blobs: blobs.map((blob) => [blob.length, sha256Hex(blob)]),
    ...(key ? { key: key.publicKey } : {}),
  };
  const hash = headerHash(withBlobs);
  const header: RecordHeader = { ...withBlobs, hash, ...(key ? { sig: key.sign(signedText(hash)) } : {}) };
  const line = Buffer.from(`${canonicalJson(header)}\n`, 'utf8');
  return { header, bytes: Buffer.concat([line, ...blobs, Buffer.from('\n')]) };
}

export type FrameRead =
  | { header: RecordHeader; headerBytes: number; size: number }
  | { torn: string }
  | { bad: string; size?: number };

/**
 * The record at the start of `bytes` (a segment read from an offset): whole, torn (the bytes end before it does:
 * a crash mid-append) or bad (whole but not a record: an edit). `complete`: the bytes run to the end of the segment.
 */
export function readFrame(bytes: Buffer, complete: boolean): FrameRead {
  const newline = bytes.indexOf(10);
  if (newline < 0) return complete ? { torn: 'the header line is cut short' } : { torn: 'need more' };
  let value: unknown;
  try {
    value = JSON.parse(bytes.subarray(0, newline).toString('utf8'));
  } catch {
    // A line that does not parse at the very end of the segment is a torn append; anywhere else, an edit.
    return { bad: 'its header is not JSON' };
  }
  const problem = headerProblem(value);
  if (problem) return { bad: `its header: ${problem}` };
  const header = value as RecordHeader;
  const body = header.blobs.reduce((sum, [length]) => sum + length, 0);
  const size = newline + 1 + body + 1;
  if (bytes.length < size)
    return complete ? { torn: `it ends after ${bytes.length} of its ${size} bytes` } : { torn: 'need more' };
  if (bytes[size - 1] !== 10) return { bad: 'it does not end where its header says', size };
  return { header, headerBytes: newline + 1, size };
}

/** The blobs of a whole record, cut from its bytes (after its header line). */
export function blobsOf(header: RecordHeader, body: Buffer): Buffer[] {
  const blobs: Buffer[] = [];
  let offset = 0;
  for (const [length] of header.blobs) {
    blobs.push(body.subarray(offset, offset + length));
    offset += length;
  }
  return blobs;
}
