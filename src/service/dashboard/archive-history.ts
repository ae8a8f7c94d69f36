// The dashboard's history read back from the archive when `start` starts (it replaced the history file): each build
// recorded in the last 24 hours as a build point, and each direction's published and market rate from the state
// lines — of every record in the last ten minutes, of the whole records (at least one per 15 minutes) before — as
// the lines History takes in. Only what changed from one point to the next is given.
import type { ArchiveStore, StoredRecord } from '../../io/archive/store.js';
import { ArchiveReader } from '../../io/archive/reader.js';
import { replayStream, STATE_STREAM } from '../../io/archive/rebuild.js';
import { readState } from '../../pure/archive/state.js';
import { HISTORY_MS, type HistoryLine, type RatePair } from './history.js';

const RECENT_MS = 10 * 60_000;

export async function historyFromArchive(store: ArchiveStore, now: Date): Promise<HistoryLine[]> {
  const reader = await ArchiveReader.open(store);
  const from = now.getTime() - HISTORY_MS;
  const recent = now.getTime() - RECENT_MS;
  const lines = new Map<number, HistoryLine>();
  const lineAt = (t: number) => lines.get(t) ?? lines.set(t, { t: new Date(t).toISOString() }).get(t)!;
  const last = new Map<string, RatePair | null>();
  const rates = (t: number, text: string) => {
    const changed: Record<string, RatePair | null> = {};
    for (const [id, line] of readState(text).directions) {
      const value: RatePair | null = line.r && line.m ? [line.r, line.m] : null;
      const before = last.get(id);
      if (before === undefined ? value === null : sameValue(before, value)) continue;
      last.set(id, value);
      changed[id] = value;
    }
    if (Object.keys(changed).length > 0) lineAt(t).r = { ...lineAt(t).r, ...changed };
  };
  const segments = reader.segments.filter(
    (segment, index) =>
      segment.first && (reader.segments[index + 1]?.first?.published ?? 'z') >= new Date(from).toISOString(),
  );
  for (const segment of segments) {
    const records = await reader.records(segment);
    for (const record of records) {
      const t = Date.parse(record.header.published);
      const { build } = record.header;
      if (t >= from && build.ms !== undefined && build.published !== undefined)
        Object.assign(lineAt(t), { ms: build.ms, n: build.published, w: build.withheld ?? 0 });
    }
    await statePoints(store, records, from, recent, rates);
  }
  return [...lines.keys()].sort((a, b) => a - b).map((t) => lines.get(t)!);
}

/** The state lines of the whole records before `recent` and of every record after it. */
async function statePoints(
  store: ArchiveStore,
  records: readonly StoredRecord[],
  from: number,
  recent: number,
  rates: (t: number, text: string) => void,
): Promise<void> {
  const time = (record: StoredRecord) => Date.parse(record.header.published);
  const firstRecent = records.findIndex((record) => time(record) >= recent);
  const older = firstRecent < 0 ? records.length : firstRecent;
  for (let i = 0; i < older; i++) {
    const record = records[i]!;
    if (record.header.state?.how !== 'key' || (time(record) < from && records[i + 1] && time(records[i + 1]!) < from))
      continue;
    await replayStream(store, records, i, i, STATE_STREAM, (_, text) => rates(Math.max(time(record), from), text));
  }
  if (firstRecent >= 0)
    await replayStream(store, records, firstRecent, records.length - 1, STATE_STREAM, (index, text) =>
      rates(time(records[index]!), text),
    );
}

const sameValue = (a: RatePair | null, b: RatePair | null) => a === b || (!!a && !!b && a[0] === b[0] && a[1] === b[1]);
