// One instance's standing on the `ha:` lock (its seat): the session on the lock's store, whether it holds the lock,
// the status it reports, and the small moves that change them (stand by, drop the session, note the lock's record).
// standby.ts asks the lock through these, before each publish and between builds.
import { hostname } from 'node:os';
import type { Logger } from '../../base/log.js';
import type { Config } from '../../model/config.js';
import type { HaStatus } from '../../pure/status/report.js';
import { configHash } from '../../pure/ha/fingerprint.js';
import { haLockStore, type LockSession, type LockStore } from './lock.js';
import { repeatFilter, type Repeats } from '../../pure/ha/repeats.js';
import { lockTiming, type LockRecord, type LockTiming } from '../../pure/ha/role.js';

export interface StandbyOptions {
  env: Record<string, string | undefined>;
  log: Logger;
  /** The wall clock, for the cooldown after a lost lock (builds pass their own time). */
  now: () => Date;
}

/** This instance's standing on the lock: its session, whether it holds the lock, and the status it reports. */
export interface Seat {
  config: Config;
  ha: NonNullable<Config['ha']>;
  options: StandbyOptions;
  instance: string;
  timing: LockTiming;
  store: LockStore;
  session?: LockSession | undefined;
  /** The session being opened, so that two asks open one. */
  opening?: Promise<LockSession | undefined> | undefined;
  held: boolean;
  /** When this instance took the lock (ms). */
  since: number;
  /** A holder that lost the lock stays away from it until then (ms). */
  cooldownUntil: number;
  record?: LockRecord | undefined;
  state: HaStatus;
  /** Each warning once (again after a while if it lasts), however many others alternate with it. */
  repeats: Repeats;
  /** Why the lock could not be reached, in the driver's words (the standby's reason says it). */
  unreachable?: string | undefined;
}

export function takeSeat(config: Config, options: StandbyOptions): Seat {
  const ha = config.ha!;
  const instance = ha.instance ?? hostname().slice(0, 64);
  const timing = lockTiming(config.schedulePeriodMs);
  return {
    config,
    ha,
    options,
    instance,
    timing,
    store: haLockStore(ha.lock, options.env, ha.name, timing, { instance, now: options.now }),
    held: false,
    since: 0,
    cooldownUntil: 0,
    state: {
      role: 'standby',
      instance,
      configHash: configHash(config),
      reason: 'no build yet',
      startedAt: options.now().toISOString(),
    },
    repeats: repeatFilter(),
  };
}

export function becomeStandby(seat: Seat, reason: string, holderHolds?: boolean): void {
  const { holderHolds: _, overwritten: __, leaderSince: ___, ...rest } = seat.state;
  seat.state = {
    ...rest,
    role: 'standby',
    reason,
    ...(seat.record ? { holder: seat.record.holder } : {}),
    ...(holderHolds === undefined ? {} : { holderHolds }),
  };
}

/** The newest publish known: a record read from the store, or this instance's own. */
export function notePublish(seat: Seat, by: string, at: number): void {
  if (seat.state.lastPublish && Date.parse(seat.state.lastPublish.at) >= at) return;
  seat.state = { ...seat.state, lastPublish: { by, at: new Date(at).toISOString() } };
}

/** Drops the session; a holder that loses it stays away from the lock for a period. */
export function drop(seat: Seat, why: string): void {
  seat.session?.close();
  seat.session = undefined;
  if (seat.held) {
    seat.cooldownUntil = seat.options.now().getTime() + seat.config.schedulePeriodMs;
    seat.options.log.warn(`ha: lost the lock on ${seat.store.where}: ${why}; this instance stops publishing`, {
      event: 'ha',
      role: 'standby',
    });
    becomeStandby(seat, `lost the lock: ${why}`);
  }
  seat.held = false;
}

export function problem(seat: Seat, text: string): void {
  if (seat.repeats.fresh(text, seat.options.now().getTime()))
    seat.options.log.warn(`ha: ${text}`, { event: 'ha', ok: false });
}

export async function ensureSession(seat: Seat): Promise<LockSession | undefined> {
  if (seat.session) return seat.session;
  seat.opening ??= seat.store
    .open()
    .then(
      (opened) => {
        seat.unreachable = undefined;
        return (seat.session = opened);
      },
      (error: unknown) => {
        seat.unreachable = seat.store.describe(error);
        problem(seat, `cannot reach the lock on ${seat.store.where}: ${seat.unreachable}`);
        return undefined;
      },
    )
    .finally(() => (seat.opening = undefined));
  return seat.opening;
}

export function noteRecord(seat: Seat, read: LockRecord | undefined): void {
  seat.record = read;
  if (read) notePublish(seat, read.holder, read.publishingAt);
  const { holderConfigHash: _, ...rest } = seat.state;
  seat.state = {
    ...rest,
    ...(read ? { holder: read.holder } : {}),
    ...(read && read.configHash !== seat.state.configHash ? { holderConfigHash: read.configHash } : {}),
  };
  if (read && read.holder !== seat.instance && read.configHash !== seat.state.configHash)
    problem(
      seat,
      `the config differs from ${read.holder}'s (hash ${read.configHash}, this one ${seat.state.configHash})`,
    );
}

export async function stillHolds(seat: Seat): Promise<boolean> {
  if (!seat.session || !seat.held) return false;
  try {
    if (await seat.session.holds()) return true;
    drop(seat, 'the lock check says another session holds it');
  } catch (error) {
    drop(seat, seat.store.describe(error));
  }
  return false;
}

/** Between builds: the holder checks it still holds the lock, a standby keeps its session alive. */
export function beat(seat: Seat): void {
  const current = seat.session;
  if (!current) return;
  (seat.held ? current.holds() : current.ping().then(() => true)).then(
    (still) => {
      if (!still && current === seat.session) drop(seat, 'the lock check says another session holds it');
    },
    (error: unknown) => {
      if (current === seat.session) drop(seat, seat.store.describe(error));
    },
  );
}
