// Which updates were handled already: Telegram sends an update again until a later getUpdates confirms it, so one
// handled just before a restart or a failover comes back; its `update_id` is then refused as a replay. The ids are
// kept with when they were seen for longer than maxAge (an older command is refused for its age anyway) and at most
// `MAX_SEEN` of them. Pure: the service saves the list in the state folder before it acts.

export const MAX_SEEN = 5000;

/** `[update_id, seen at (ms)]`, oldest first. */
export type Seen = readonly (readonly [number, number])[];

/** The updates of a batch not seen before, and the list with them added and the old ones dropped. */
export function noteUpdates(
  seen: Seen,
  ids: readonly number[],
  at: number,
  keepMs: number,
): { fresh: Set<number>; seen: [number, number][] } {
  const known = new Set(seen.map(([id]) => id));
  const fresh = new Set<number>();
  for (const id of ids) if (!known.has(id) && !fresh.has(id)) fresh.add(id);
  const kept = [...seen.filter(([, when]) => at - when <= keepMs), ...[...fresh].map((id) => [id, at] as const)];
  return { fresh, seen: kept.slice(-MAX_SEEN).map(([id, when]) => [id, when]) };
}

/** A saved list as read back: entries of another shape left out. */
export function seenOf(data: unknown): [number, number][] {
  if (!Array.isArray(data)) return [];
  return data.filter(
    (entry): entry is [number, number] =>
      Array.isArray(entry) && entry.length === 2 && Number.isSafeInteger(entry[0]) && Number.isFinite(entry[1]),
  );
}
