// A leader's files in place under `ha:`: each confirmed on the lock (and by the build's age) right before it is put
// there, and watched after, so a file another writer puts over one of them (an old leader that resumed after a pause,
// a VM freeze, a slow disk) is noticed within a fraction of a second and published over at once.
import { basename } from 'node:path';
import type { Logger } from '../../base/log.js';
import { PlaceRefused, placedStamps, replacedSince } from '../build/publish.js';
import type { PublishGate } from './standby.js';

/** What a fence needs besides the lock: the wall clock and the schedule's period. */
export interface FenceClock {
  now: () => Date;
  periodMs: number;
}

/**
 * Why the file of the build made at `at` may not be put in place now, or undefined. The lock is asked on its
 * connection first, then the build's age against the wall clock: a build a period old or more is never put in place,
 * as another instance may have taken over and published since (a pause of this process between the two is a pause
 * before the age is read, so it counts).
 */
async function refusal(gate: PublishGate, at: Date, clock: FenceClock): Promise<PlaceRefused | undefined> {
  if (!(await gate.stillHolds())) return new PlaceRefused('this instance no longer holds the lock', true);
  const ageMs = clock.now().getTime() - at.getTime();
  if (ageMs < clock.periodMs) return undefined;
  return new PlaceRefused(
    `the build of ${at.toISOString()} is ${ageMs} ms old, a period (${clock.periodMs} ms) or more: another instance may have published since`,
    false,
  );
}

/** The `beforePlace` of a publish: the lock confirmed, and the build's age checked, right before each rename. */
export function placeFence(gate: PublishGate, at: Date, clock: FenceClock): (path: string) => Promise<void> {
  return async (path) => {
    const refused = await refusal(gate, at, clock);
    if (refused) throw new PlaceRefused(`ha: ${basename(path)} not put in place: ${refused.message}`, refused.lost);
  };
}

/** The `beforePut` of an S3 upload: the same, right before each object is put. */
export function uploadFence(
  gate: PublishGate,
  at: Date,
  clock: FenceClock,
): (file: string) => Promise<string | undefined> {
  return async () => (await refusal(gate, at, clock))?.message;
}

export interface PlacedWatch {
  /** A build of this instance starts: its own renames are not another writer's. */
  busy(): void;
  /** The build is over: `files` are this leader's to watch (their stamps as it left them); undefined: none are. */
  settled(files: readonly string[] | undefined): void;
  close(): void;
}

export interface PlacedWatchOptions {
  dir: string;
  /** How often the stamps (three stats per export) are compared. */
  intervalMs: number;
  /** Called once per replacement seen; the watch rests until the next `settled`. */
  onReplaced: (files: string[]) => void;
}

export function watchPlaced(options: PlacedWatchOptions): PlacedWatch {
  let expected: Map<string, string> | undefined;
  let checking = false;
  const timer = setInterval(() => {
    const compared = expected;
    if (!compared || compared.size === 0 || checking) return;
    checking = true;
    replacedSince(compared, options.dir)
      .then(
        (files) => {
          // A build that started meanwhile made the comparison moot (its own renames change the stamps).
          if (files.length === 0 || expected !== compared) return;
          expected = undefined;
          options.onReplaced(files);
        },
        () => undefined,
      )
      .finally(() => (checking = false));
  }, options.intervalMs);
  timer.unref();
  return {
    busy: () => {
      expected = undefined;
    },
    settled: (files) => {
      expected = files ? placedStamps(files, options.dir) : undefined;
    },
    close: () => clearInterval(timer),
  };
}

export interface GuardPlacedOptions {
  dir: string;
  standby: PublishGate;
  log: Logger;
  now: () => Date;
  rebuild: () => Promise<void>;
}

/**
 * The service's watch over a leader's files: a replacement is noted on the gate (the status's `ha.overwritten`, an
 * alert), logged, and published over by a build at once.
 */
export function guardPlaced(options: GuardPlacedOptions): PlacedWatch {
  return watchPlaced({
    dir: options.dir,
    intervalMs: 250,
    onReplaced: (files) => void judgeReplaced(files, options),
  });
}

/**
 * Only a leader judges: the lock is asked first, on its connection. An instance that resumed after a pause may still
 * take itself for the leader until that answer; the files it finds replaced are then the new leader's, which is no
 * fault (its lost lock is logged once, by the lock check itself), and it neither alerts nor publishes over them.
 */
async function judgeReplaced(files: string[], options: GuardPlacedOptions): Promise<void> {
  const { standby } = options;
  if (standby.status().role !== 'leader' || !(await standby.stillHolds())) return;
  standby.overwritten(files, options.now());
  options.log.warn(
    `ha: ${files.join(', ')} replaced by another writer while this instance leads (an old leader resumed?): publishing again at once`,
    { event: 'ha', ok: false, files },
  );
  await options.rebuild();
}
