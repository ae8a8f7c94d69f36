// One instance's side of a warm standby: it holds a session on the lock's store, and runCycle asks it right
// before each publish whether this instance may publish (it takes the lock then when it is free). A lost session
// makes it a standby at once, and it leaves the lock to the others for one period before trying again.
import { emptyGuardState, type GuardState } from '../../pure/guards/guards.js';
import type { Config } from '../../model/config.js';
import type { HaStatus } from '../../pure/status/report.js';
import { configHash } from '../../pure/ha/fingerprint.js';
import type { LockSession } from './lock.js';
import { decidePublish, type PublishDecision } from '../../pure/ha/role.js';
import {
  beat,
  becomeStandby,
  drop,
  ensureSession,
  noteRecord,
  notePublish,
  problem,
  type Seat,
  type StandbyOptions,
  stillHolds,
  takeSeat,
} from './seat.js';

/** What runCycle asks of the standby logic (absent without an `ha:` block: every build publishes). */
export interface PublishGate {
  /** The guard state the last holder recorded after its publish, to build with; undefined: the local file's. */
  sharedGuard(): Promise<GuardState | undefined>;
  /** Right before publishing the build made at `at`: may this instance publish? */
  mayPublish(config: Config, at: Date): Promise<boolean>;
  /** The build made at `at` took `buildMs`, a period or more: it is not published (kept for status and health). */
  tooSlow(buildMs: number, at: Date): void;
  /** Right before each file is put in place (renamed, uploaded): does this instance still hold the lock? */
  stillHolds(): Promise<boolean>;
  /** Files another writer replaced while this instance led (put back by a publish at once): kept for the alert. */
  overwritten(files: readonly string[], at: Date): void;
  /** After a publish: record its guard state for the next holder; a warning when that failed. */
  published(guard: GuardState): Promise<string | undefined>;
  status(): HaStatus;
}

export interface Standby extends PublishGate {
  where: string;
  /** Ends the session: another instance may take the lock at its next build. */
  close(): void;
}

function guardOf(text: string | undefined): GuardState | undefined {
  if (text === undefined) return undefined;
  try {
    const data = JSON.parse(text) as Partial<GuardState>;
    if (typeof data.published !== 'object' || typeof data.pending !== 'object') return undefined;
    return { ...emptyGuardState(), published: data.published ?? {}, pending: data.pending ?? {} };
  } catch {
    return undefined;
  }
}

export function createStandby(config: Config, options: StandbyOptions): Standby {
  const seat = takeSeat(config, options);
  const heartbeat = setInterval(() => beat(seat), seat.timing.heartbeatMs);
  heartbeat.unref();
  return {
    where: seat.store.where,
    status: () => seat.state,
    sharedGuard: () => sharedGuard(seat),
    mayPublish: (built, at) => mayPublish(seat, built, at),
    stillHolds: () => stillHolds(seat),
    tooSlow(buildMs, at) {
      seat.state = { ...seat.state, slowBuild: { buildMs: Math.round(buildMs), at: at.toISOString() } };
    },
    overwritten(files, at) {
      seat.state = { ...seat.state, overwritten: { files: [...files], at: at.toISOString() } };
    },
    published: (guard) => published(seat, guard),
    close() {
      clearInterval(heartbeat);
      seat.held = false;
      seat.session?.close();
      seat.session = undefined;
    },
  };
}

async function sharedGuard(seat: Seat): Promise<GuardState | undefined> {
  const current = await ensureSession(seat);
  if (!current) return undefined;
  try {
    const read = await current.read();
    noteRecord(seat, read.record);
    return guardOf(read.guard);
  } catch (error) {
    drop(seat, seat.store.describe(error));
    return undefined;
  }
}

/** Away for a period after a lost lock, else on a session: take the lock if free, read its record, decide. */
async function mayPublish(seat: Seat, built: Config, at: Date): Promise<boolean> {
  // A build that got here in time: builds are no longer too slow to publish.
  const { slowBuild: _, ...state } = seat.state;
  seat.state = { ...state, configHash: configHash(built) };
  if (!seat.held && seat.options.now().getTime() < seat.cooldownUntil) {
    becomeStandby(seat, 'lost the lock; leaving it to another instance for one period');
    return false;
  }
  const current = await ensureSession(seat);
  if (!current) {
    const why = seat.unreachable === undefined ? '' : `: ${seat.unreachable}`;
    becomeStandby(seat, `cannot reach the lock on ${seat.store.where}${why}`);
    return false;
  }
  try {
    let holds = await current.holds();
    if (seat.held && !holds) throw new Error('the lock check says another session holds it');
    if (!holds) holds = await current.take();
    const read = await current.read();
    noteRecord(seat, read.record);
    const decision = decidePublish(holds, read.record, {
      instance: seat.instance,
      configHash: seat.state.configHash,
      at: at.getTime(),
      periodMs: seat.config.schedulePeriodMs,
      allowConfigMismatch: seat.ha.allowConfigMismatch,
    });
    if (!decision.publish) {
      stepBack(seat, current, holds, decision);
      return false;
    }
    await lead(seat, current, at, decision);
    return true;
  } catch (error) {
    drop(seat, seat.store.describe(error));
    becomeStandby(seat, `the lock on ${seat.store.where} failed: ${seat.store.describe(error)}`);
    return false;
  }
}

/** Not publishing this build: a decision to release gives the lock up, else the lock stays as it is. */
function stepBack(
  seat: Seat,
  current: LockSession,
  holds: boolean,
  decision: Extract<PublishDecision, { publish: false }>,
) {
  if (decision.release) {
    problem(seat, decision.reason);
    seat.held = false;
    current.close();
    seat.session = undefined;
  } else seat.held = holds;
  // Not holding it: another session does. Holding it (and not publishing): the last holder does not.
  becomeStandby(seat, decision.reason, !holds);
}

/** Publishing this build: the record claimed for it, and this instance the leader. */
async function lead(seat: Seat, current: LockSession, at: Date, decision: Extract<PublishDecision, { publish: true }>) {
  const { instance } = seat;
  // A new term: the lock newly taken, or held since a build that left the publish to the last holder's period.
  const taken = !seat.held || seat.state.role !== 'leader';
  if (taken) seat.since = at.getTime();
  const claim = { holder: instance, configHash: seat.state.configHash, since: seat.since, publishingAt: at.getTime() };
  await current.claim(claim);
  if (taken)
    seat.options.log.info(
      `ha: took the lock on ${seat.store.where}: this instance publishes${decision.takeover ? ` (took over from ${decision.takeover.from})` : ''}`,
      { event: 'ha', role: 'leader', ...(decision.takeover ? { from: decision.takeover.from } : {}) },
    );
  seat.held = true;
  seat.repeats.clear();
  const { reason: _, holderConfigHash: __, holderHolds: ___, ...rest } = seat.state;
  seat.state = {
    ...rest,
    role: 'leader',
    holder: instance,
    leaderSince: new Date(seat.since).toISOString(),
    ...(decision.takeover ? { takeover: { from: decision.takeover.from, at: at.toISOString() } } : {}),
  };
  seat.record = { holder: instance, configHash: seat.state.configHash, since: seat.since, publishingAt: at.getTime() };
}

/** After a publish: its guard state recorded for the next holder; a warning when that failed. */
async function published(seat: Seat, guard: GuardState): Promise<string | undefined> {
  if (!seat.session || !seat.held) return 'ha: the guard state was not recorded in the lock store: the lock was lost';
  if (seat.record?.holder === seat.instance) notePublish(seat, seat.instance, seat.record.publishingAt);
  try {
    await seat.session.saveGuard(seat.instance, JSON.stringify(guard));
    return undefined;
  } catch (error) {
    const text = seat.store.describe(error);
    drop(seat, text);
    return `ha: the guard state was not recorded in the lock store: ${text}`;
  }
}
