// One record of the archive: a build that changed an export, as its header (what a third party checks) and its
// blobs (what rebuilds the exports). The header's canonical encoding, its hash and the chain of hashes are here,
// pure; the framing on disk, the signing and the stores are src/io/archive/.
import { createHash } from 'node:crypto';

/** How a stream (an export, or the state lines) is kept in a record. */
export type StreamHow = 'key' | 'diff' | 'same' | 'gone';

export interface StreamEntry {
  /** `key`: its whole bytes (blob), `diff`: operations on its last version (blob), `same`: unchanged, `gone`: removed. */
  how: StreamHow;
  /** SHA-256 of its bytes (hex), absent when gone. */
  sha256?: string;
  bytes?: number;
  /** Index of its blob in the record, for `key` and `diff`. */
  blob?: number;
}

export interface RecordBuild {
  /** The build's id: its start (ISO) and, under `ha:`, the instance (`…Z/host-a`); `found@…` for a file found on disk. */
  id: string;
  /** The first 16 hex digits of the config's hash (src/pure/ha/fingerprint.ts). */
  config?: string;
  /** The instance that published it, under `ha:`. */
  instance?: string;
  /** Build time (ms), directions published and withheld: the dashboard's build chart. */
  ms?: number;
  published?: number;
  withheld?: number;
}

/** Records of earlier segments removed by the window or the budget: the last one removed and its hash. */
export interface Dropped {
  through: number;
  hash: string;
  why: 'window' | 'budget';
}

export interface RecordHeader {
  v: 1;
  seq: number;
  /** The previous record's hash; 64 zeros for the first record ever. */
  prev: string;
  /** The segment the record is in (`2026-12-02-1`): a segment's first record is whole (every stream `key`). */
  segment: string;
  /** When the build started, and when its files were in place (ISO): a file is served from `published` on. */
  at: string;
  published: string;
  build: RecordBuild;
  exports: Record<string, StreamEntry>;
  /** The state lines (state.ts): each direction's quotes, margin, market and rate, for `ratefile at`. */
  state?: StreamEntry;
  /** Each blob's length and SHA-256 (hex), in order; the blobs follow the header. */
  blobs: [number, string][];
  /** What happened to the archive since the record before: a torn record set aside, builds not kept, records removed. */
  notes?: {
    dropped?: Dropped;
    repaired?: { segment: string; offset: number; bytes: number; moved: string };
    gap?: { builds: number; from: string; to: string; why: string };
    found?: string[];
  };
  /** The signer's Ed25519 public key (base64 of its 32 bytes), when the record is signed. */
  key?: string;
  /** SHA-256 (hex) of the canonical encoding of every field above. */
  hash: string;
  /** Ed25519 signature (base64) of `ratefile-archive-v1:` + hash, when signed. */
  sig?: string;
}

export type UnhashedHeader = Omit<RecordHeader, 'hash' | 'sig'>;

export const ZERO_HASH = '0'.repeat(64);

/**
 * The canonical encoding a hash is taken of: JSON with every object's keys in code-point order, no white space,
 * integers as integers, strings as JSON.stringify writes them. A third party rebuilds it in any language.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isSafeInteger(value))
      throw new Error('canonical: a number that is not an integer');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, part]) => part !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, part]) => `${JSON.stringify(key)}:${canonicalJson(part)}`).join(',')}}`;
}

export const sha256Hex = (bytes: string | Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** The hash of a header: SHA-256 of the canonical encoding of everything but `hash` and `sig`. */
export function headerHash(header: UnhashedHeader | RecordHeader): string {
  const { hash: _h, sig: _s, ...rest } = header as RecordHeader;
  return sha256Hex(canonicalJson(rest));
}

/** What the operator's key signs for a record: the hash, after a prefix no quote's message starts with. */
export const signedText = (hash: string): string => `ratefile-archive-v1:${hash}`;

/** Whether a value read back has a header's shape (its fields checked one by one; `problem` says the first wrong). */
export function headerProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const header = value as Record<string, unknown>;
  if (header.v !== 1) return 'v: expected 1';
  if (!Number.isSafeInteger(header.seq) || (header.seq as number) < 0) return 'seq: expected a whole number';
  for (const key of ['prev', 'hash'] as const)
    if (typeof header[key] !== 'string' || !/^[0-9a-f]{64}$/.test(header[key] as string))
      return `${key}: expected 64 hex digits`;
  for (const key of ['at', 'published', 'segment'] as const)
    if (typeof header[key] !== 'string') return `${key}: expected text`;
  if (Number.isNaN(Date.parse(header.published as string))) return 'published: expected an ISO time';
  if (typeof header.build !== 'object' || header.build === null) return 'build: expected an object';
  if (typeof header.exports !== 'object' || header.exports === null) return 'exports: expected an object';
  const blobs = header.blobs;
  if (
    !Array.isArray(blobs) ||
    !blobs.every(
      (blob) =>
        Array.isArray(blob) &&
        Number.isSafeInteger(blob[0]) &&
        blob[0] >= 0 &&
        typeof blob[1] === 'string' &&
        /^[0-9a-f]{64}$/.test(blob[1]),
    )
  )
    return 'blobs: expected [length, sha256] pairs';
  return undefined;
}
