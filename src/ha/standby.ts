// One instance's side of a warm standby: it holds a session on the lock's store, and runCycle asks it right
// before each publish whether this instance may publish (it takes the lock then when it is free). A lost session
// makes it a standby at once, and it leaves the lock to the others for one period before trying again.
import { hostname } from 'node:os';
import { emptyGuardState, type GuardState } from '../guards.js';
import type { Logger } from '../log.js';
import type { Config } from '../model.js';
import type { HaStatus } from '../report.js';
import { configHash } from './fingerprint.js';
import { lockStore, type LockSession, type LockStore } from './lock.js';
import { repeatFilter } from './repeats.js';
import { decidePublish, lockTiming, type LockRecord, type LockTiming } from './role.js';

/** What runCycle asks of the standby logic (absent without an `ha:` block: every build publishes). */
export interface PublishGate {
  /** The guard state the last holder recorded after its publish, to build with; undefined: the local file's. */
  sharedGuard(): Promise<GuardState | undefined>;
  /** Right before publishing the build made at `at`: may this instance publish? */
  mayPublish(config: Config, at: Date): Promise<boolean>;
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

export interface StandbyOptions {
  env: Record<string, string | undefined>;
  log: Logger;
  /** The wall clock, for the cooldown after a lost lock (builds pass their own time). */
  now: () => Date;
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
  const ha = config.ha!;
  const { log } = options;
  const instance = ha.instance ?? hostname().slice(0, 64);
  const timing: LockTiming = lockTiming(config.schedulePeriodMs);
  const store: LockStore = lockStore(ha.lock.env, options.env, ha.name, timing);
  let session: LockSession | undefined;
  let opening: Promise<LockSession | undefined> | undefined;
  let held = false;
  let since = 0;
  let cooldownUntil = 0;
  let record: LockRecord | undefined;
  let state: HaStatus = {
    role: 'standby',
    instance,
    configHash: configHash(config),
    reason: 'no build yet',
    startedAt: options.now().toISOString(),
  };
  // Each warning once (again after a while if it lasts), however many others alternate with it.
  const repeats = repeatFilter();
  /** Why the lock could not be reached, in the driver's words (the standby's reason says it). */
  let unreachable: string | undefined;

  const standby = (reason: string, holderHolds?: boolean) => {
    const { holderHolds: _, overwritten: __, ...rest } = state;
    state = {
      ...rest,
      role: 'standby',
      reason,
      ...(record ? { holder: record.holder } : {}),
      ...(holderHolds === undefined ? {} : { holderHolds }),
    };
  };
  /** The newest publish known: a record read from the store, or this instance's own. */
  const notePublish = (by: string, at: number) => {
    if (state.lastPublish && Date.parse(state.lastPublish.at) >= at) return;
    state = { ...state, lastPublish: { by, at: new Date(at).toISOString() } };
  };
  /** Drops the session; a holder that loses it stays away from the lock for a period. */
  const drop = (why: string) => {
    session?.close();
    session = undefined;
    if (held) {
      cooldownUntil = options.now().getTime() + config.schedulePeriodMs;
      log.warn(`ha: lost the lock on ${store.where}: ${why}; this instance stops publishing`, {
        event: 'ha',
        role: 'standby',
      });
      standby(`lost the lock: ${why}`);
    }
    held = false;
  };
  const problem = (text: string) => {
    if (repeats.fresh(text, options.now().getTime())) log.warn(`ha: ${text}`, { event: 'ha', ok: false });
  };
  const ensureSession = async (): Promise<LockSession | undefined> => {
    if (session) return session;
    opening ??= store
      .open()
      .then(
        (opened) => {
          unreachable = undefined;
          return (session = opened);
        },
        (error: unknown) => {
          unreachable = store.describe(error);
          problem(`cannot reach the lock on ${store.where}: ${unreachable}`);
          return undefined;
        },
      )
      .finally(() => (opening = undefined));
    return opening;
  };
  const noteRecord = (read: LockRecord | undefined) => {
    record = read;
    if (read) notePublish(read.holder, read.publishingAt);
    const { holderConfigHash: _, ...rest } = state;
    state = {
      ...rest,
      ...(read ? { holder: read.holder } : {}),
      ...(read && read.configHash !== state.configHash ? { holderConfigHash: read.configHash } : {}),
    };
    if (read && read.holder !== instance && read.configHash !== state.configHash)
      problem(`the config differs from ${read.holder}'s (hash ${read.configHash}, this one ${state.configHash})`);
  };

  const stillHolds = async () => {
    if (!session || !held) return false;
    try {
      if (await session.holds()) return true;
      drop('the lock check says another session holds it');
    } catch (error) {
      drop(store.describe(error));
    }
    return false;
  };

  const heartbeat = setInterval(() => {
    const current = session;
    if (!current) return;
    (held ? current.holds() : current.ping().then(() => true)).then(
      (still) => {
        if (!still && current === session) drop('the lock check says another session holds it');
      },
      (error: unknown) => {
        if (current === session) drop(store.describe(error));
      },
    );
  }, timing.heartbeatMs);
  heartbeat.unref();

  return {
    where: store.where,
    status: () => state,
    async sharedGuard() {
      const current = await ensureSession();
      if (!current) return undefined;
      try {
        const read = await current.read();
        noteRecord(read.record);
        return guardOf(read.guard);
      } catch (error) {
        drop(store.describe(error));
        return undefined;
      }
    },
    async mayPublish(built, at) {
      state = { ...state, configHash: configHash(built) };
      if (!held && options.now().getTime() < cooldownUntil) {
        standby('lost the lock; leaving it to another instance for one period');
        return false;
      }
      const current = await ensureSession();
      if (!current) {
        standby(`cannot reach the lock on ${store.where}${unreachable === undefined ? '' : `: ${unreachable}`}`);
        return false;
      }
      try {
        let holds = await current.holds();
        if (held && !holds) throw new Error('the lock check says another session holds it');
        if (!holds) holds = await current.take();
        const read = await current.read();
        noteRecord(read.record);
        const decision = decidePublish(holds, read.record, {
          instance,
          configHash: state.configHash,
          at: at.getTime(),
          periodMs: config.schedulePeriodMs,
          allowConfigMismatch: ha.allowConfigMismatch,
        });
        if (!decision.publish) {
          if (decision.release) {
            problem(decision.reason);
            held = false;
            current.close();
            session = undefined;
          } else held = holds;
          // Not holding it: another session does. Holding it (and not publishing): the last holder does not.
          standby(decision.reason, !holds);
          return false;
        }
        if (!held) since = at.getTime();
        await current.claim({ holder: instance, configHash: state.configHash, since, publishingAt: at.getTime() });
        if (!held)
          log.info(
            `ha: took the lock on ${store.where}: this instance publishes${decision.takeover ? ` (took over from ${decision.takeover.from})` : ''}`,
            { event: 'ha', role: 'leader', ...(decision.takeover ? { from: decision.takeover.from } : {}) },
          );
        held = true;
        repeats.clear();
        const { reason: _, holderConfigHash: __, holderHolds: ___, ...rest } = state;
        state = {
          ...rest,
          role: 'leader',
          holder: instance,
          ...(decision.takeover ? { takeover: { from: decision.takeover.from, at: at.toISOString() } } : {}),
        };
        record = { holder: instance, configHash: state.configHash, since, publishingAt: at.getTime() };
        return true;
      } catch (error) {
        drop(store.describe(error));
        standby(`the lock on ${store.where} failed: ${store.describe(error)}`);
        return false;
      }
    },
    stillHolds,
    overwritten(files, at) {
      state = { ...state, overwritten: { files: [...files], at: at.toISOString() } };
    },
    async published(guard) {
      if (!session || !held) return 'ha: the guard state was not recorded in the lock store: the lock was lost';
      if (record?.holder === instance) notePublish(instance, record.publishingAt);
      try {
        await session.saveGuard(instance, JSON.stringify(guard));
        return undefined;
      } catch (error) {
        const text = store.describe(error);
        drop(text);
        return `ha: the guard state was not recorded in the lock store: ${text}`;
      }
    },
    close() {
      clearInterval(heartbeat);
      held = false;
      session?.close();
      session = undefined;
    },
  };
}
