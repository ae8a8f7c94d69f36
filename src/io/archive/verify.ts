// `ratefile archive verify`: every record of the archive checked in order — its hash against its contents, its
// link to the record before (seq and hash), its blobs against their SHA-256, its signature — and the ends: the
// first record is the first ever or one a later record says the window or budget dropped the records before, and the
// last is the one the status last saw recorded (a record cut from the end is found there). The first bad record is
// named. `rebuild`: each stream also rebuilt at every record and its SHA-256 compared (slow on a large archive).
import { headerHash, signedText, sha256Hex, ZERO_HASH, type RecordHeader } from '../../pure/archive/record.js';
import { verifySignature } from './key.js';
import { liveStreams, rebuildStream, streamEntry } from './rebuild.js';
import type { ArchiveStore, StoredRecord } from './store.js';

export interface VerifyOptions {
  /** Every record must be signed by this public key (base64 of 32 bytes): a third party's own copy of it. */
  publicKey?: string;
  /** The newest record some other witness saw (the status file's): one missing from the end is found. */
  expectedLast?: { seq: number; hash: string };
  rebuild?: boolean;
  /** Only the records after this one, which an earlier verification found good (the service's check of new records). */
  after?: { seq: number; hash: string };
}

export interface VerifyProblem {
  /** `seq 42 (segment 2026-12-02-1)`, or `segment 2026-12-02-1 at byte 5120`. */
  where: string;
  seq?: number;
  problem: string;
}

export interface VerifyResult {
  records: number;
  segments: number;
  signed: number;
  first?: RecordHeader;
  last?: RecordHeader;
  /** In the archive's order; the first is the first bad record. */
  problems: VerifyProblem[];
}

const whereOf = (record: StoredRecord) =>
  `seq ${record.header.seq} (segment ${record.segment}, published ${record.header.published})`;

export async function verifyArchive(store: ArchiveStore, options: VerifyOptions = {}): Promise<VerifyResult> {
  const result: VerifyResult = { records: 0, segments: 0, signed: 0, problems: [] };
  const problem = (record: StoredRecord, text: string) =>
    result.problems.push({ where: whereOf(record), seq: record.header.seq, problem: text });
  const drops: NonNullable<NonNullable<RecordHeader['notes']>['dropped']>[] = [];
  let previous: RecordHeader | undefined;
  const segments = await store.segments();
  const after = options.after;
  for (const [at, segment] of segments.entries()) {
    // Segments wholly before `after`: not read (the next one starts at or before it).
    const next = segments[at + 1]?.first;
    if (after && next && next.seq <= after.seq) continue;
    result.segments += 1;
    const { records, end } = await store.records(segment.name);
    for (const [index, record] of records.entries()) {
      const { header } = record;
      if (after && header.seq <= after.seq) {
        if (header.seq === after.seq && header.hash !== after.hash)
          problem(record, 'it is not the record verified before');
        previous = header;
        continue;
      }
      result.records += 1;
      result.first ??= header;
      for (const text of await recordProblems(store, record, index === 0, previous, options)) problem(record, text);
      if (header.sig) result.signed += 1;
      if (header.notes?.dropped) drops.push(header.notes.dropped);
      if (options.rebuild) for (const text of await rebuildProblems(store, records, index)) problem(record, text);
      previous = header;
    }
    if (end)
      result.problems.push({
        where: `segment ${segment.name} at byte ${end.offset}${previous ? `, after seq ${previous.seq}` : ''}`,
        problem: `${end.bytes} bytes that are no whole record: ${end.problem}${end.torn ? ' (cut short)' : ''}`,
      });
  }
  if (previous) result.last = previous;
  const first = result.first;
  if (
    !after &&
    first &&
    first.seq > 0 &&
    !drops.some((drop) => drop.through === first.seq - 1 && drop.hash === first.prev)
  )
    result.problems.unshift({
      where: `before seq ${first.seq}`,
      seq: first.seq - 1,
      problem: `the records before seq ${first.seq} are missing, and no record says the window or the budget dropped them`,
    });
  const expected = options.expectedLast;
  if (expected && (!previous || previous.seq < expected.seq))
    result.problems.push({
      where: `after seq ${previous?.seq ?? 'none'}`,
      seq: (previous?.seq ?? -1) + 1,
      problem: `records cut from the end: the status saw seq ${expected.seq} recorded`,
    });
  else if (expected && previous?.seq === expected.seq && previous.hash !== expected.hash)
    result.problems.push({
      where: `seq ${previous.seq}`,
      seq: previous.seq,
      problem: 'the last record is not the one the status saw recorded',
    });
  result.problems.sort((a, b) => (a.seq ?? Infinity) - (b.seq ?? Infinity));
  return result;
}

/** What is wrong with one record: its hash, its link to the one before, its blobs, its signature. */
export async function recordProblems(
  store: ArchiveStore,
  record: StoredRecord,
  startsSegment: boolean,
  previous: RecordHeader | undefined,
  options: VerifyOptions,
): Promise<string[]> {
  const { header } = record;
  const problems: string[] = [];
  if (headerHash(header) !== header.hash) problems.push('its hash does not match its contents: the record was edited');
  if (previous && header.seq !== previous.seq + 1)
    problems.push(
      header.seq > previous.seq + 1
        ? `records missing before it: seq ${previous.seq} is followed by seq ${header.seq}`
        : `its seq comes after seq ${previous.seq}: records repeated or reordered`,
    );
  else if (previous && header.prev !== previous.hash)
    problems.push(
      `it does not follow seq ${previous.seq}: its prev is not that record's hash (a record removed or replaced)`,
    );
  if (!previous && header.seq === 0 && header.prev !== ZERO_HASH)
    problems.push('the first record names a record before it');
  if (header.segment !== record.segment) problems.push(`it says segment ${header.segment}, it is in ${record.segment}`);
  if (startsSegment && !liveStreams(header).every((stream) => streamEntry(header, stream)?.how === 'key'))
    problems.push('it starts its segment but is not whole');
  problems.push(...(await blobProblems(store, record)));
  problems.push(...signatureProblems(header, options.publicKey));
  return problems;
}

async function blobProblems(store: ArchiveStore, record: StoredRecord): Promise<string[]> {
  try {
    const blobs = await store.blobs(record);
    return record.header.blobs.flatMap(([length, sha], index) => {
      const blob = blobs[index];
      return blob && blob.length === length && sha256Hex(blob) === sha
        ? []
        : [`blob ${index} is not the one its header names`];
    });
  } catch (error) {
    return [`its blobs cannot be read: ${(error as Error).message}`];
  }
}

function signatureProblems(header: RecordHeader, publicKey: string | undefined): string[] {
  if (!header.sig || !header.key) return publicKey ? ['it is not signed'] : [];
  if (publicKey && header.key !== publicKey) return ['it is signed by another key than the one given'];
  return verifySignature(header.key, signedText(header.hash), header.sig) ? [] : ['its signature does not verify'];
}

async function rebuildProblems(
  store: ArchiveStore,
  records: readonly StoredRecord[],
  index: number,
): Promise<string[]> {
  const problems: string[] = [];
  for (const stream of liveStreams(records[index]!.header)) {
    if (streamEntry(records[index]!.header, stream)?.how === 'same') continue;
    try {
      await rebuildStream(store, records, index, stream);
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  return problems;
}
