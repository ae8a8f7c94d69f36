// Repeat suppression for lines that recur at every build (a standby's warnings, its reason): each text is logged
// once and again only after `quietMs` while it keeps recurring. Keyed by text, not "same as the last line", so two
// warnings that alternate build after build are each logged once, not at every build. Pure: the clock is passed in.

export interface Repeats {
  /** True when `text` was not logged within `quietMs` before `now` (and it counts as logged now). */
  fresh(text: string, now: number): boolean;
  /** Forget every text (the trouble is over): the next occurrence of any is logged again. */
  clear(): void;
}

/** 30 minutes: a problem that lasts resurfaces in the log twice an hour, not 120 times at a 30 s schedule. */
export const REPEAT_QUIET_MS = 30 * 60_000;

export function repeatFilter(quietMs = REPEAT_QUIET_MS, limit = 64): Repeats {
  const logged = new Map<string, number>();
  return {
    fresh(text, now) {
      const last = logged.get(text);
      if (last !== undefined && now - last < quietMs) return false;
      // Re-inserted, so the map's order is the order of logging and the oldest goes first past the limit.
      logged.delete(text);
      logged.set(text, now);
      if (logged.size > limit) logged.delete(logged.keys().next().value!);
      return true;
    },
    clear: () => logged.clear(),
  };
}
