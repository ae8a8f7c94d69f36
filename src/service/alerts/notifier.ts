// The alert notifier: after each build, what started, ended or still lasts (a reminder), as one message per
// channel. Delivery runs in the background, so a channel that is down never delays a build. A message waits in
// the outbox (`.ratefile/alerts.json`, with the known problems, one atomic file so a crash cannot lose one
// without the other) until every channel has it: retries never give up while it is relevant, with backoff
// capped at 30 s, and each channel gets its messages in order, so a problem's start arrives before its end.
// It leaves undelivered only when superseded, when the outbox is full, or when the receiver rejects it: each logged.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { assessHealth } from '../../pure/status/health.js';
import type { Logger } from '../../base/log.js';
import type { HealthLevel } from '../../model/config.js';
import type { Channel } from './channels.js';
import { alertsFile, type Delivery, kick, logDropped, openDelivery, save, type Stored } from './delivery.js';
import { enqueue, restoreOutbox } from './outbox.js';
import { compareProblems, currentProblems, messageText, type AlertState, type Problem } from './problems.js';
import type { Status } from '../../pure/status/report.js';

export interface NotifierOptions {
  channels: readonly Channel[];
  stateDir: string;
  reminderMs: number;
  log: Logger;
  /** Delay before retry n (1-based) of one message on one channel; default 1 s, 2 s, 4 s… up to 30 s. */
  backoffMs?: (attempt: number) => number;
  /** How a retry waits (default a timer); tests pass a simulated clock. Resolves early when `signal` aborts. */
  wait?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Messages kept undelivered at most (default 200); beyond, the oldest is dropped (logged). */
  outboxLimit?: number;
}

export interface Notifier {
  /**
   * Compare this build's status (and `more` problems, e.g. silent monitors) with the known problems and queue a
   * message if anything changed; never throws. `recoveries`: what ended a problem of `more`, by key, for its end.
   */
  observe(
    status: Status,
    now: Date,
    more?: readonly Problem[],
    recoveries?: ReadonlyMap<string, string>,
  ): Promise<void>;
  /** Resolves once the outbox is empty (tests): never while a channel stays down. */
  idle(): Promise<void>;
  /** Stop delivering (an attempt under way is abandoned); what is undelivered stays in the outbox for the next start. */
  stop(): Promise<void>;
}

async function readStored(
  stateDir: string,
): Promise<{ active: AlertState['active']; outbox: unknown; problem?: string }> {
  let text: string;
  try {
    text = await readFile(alertsFile(stateDir), 'utf8');
  } catch {
    return { active: {}, outbox: undefined };
  }
  try {
    const data = JSON.parse(text) as Partial<Stored> | null;
    const active = typeof data?.active === 'object' && data.active !== null ? data.active : {};
    return { active, outbox: data?.outbox };
  } catch (error) {
    return { active: {}, outbox: undefined, problem: (error as Error).message };
  }
}

const rank: Record<HealthLevel, number> = { ok: 0, degraded: 1, failing: 2 };
/** A message's level: the worst of health's and of the problems now open that health does not count (monitors). */
function messageLevel(health: HealthLevel, problems: readonly Problem[]): HealthLevel {
  return problems.reduce<HealthLevel>(
    (worst, problem) => (problem.level && rank[problem.level] > rank[worst] ? problem.level : worst),
    health,
  );
}

export function createNotifier(options: NotifierOptions): Notifier {
  const delivery = openDelivery(options);
  // What the last run left undelivered goes out first, before anything this run finds.
  const loaded = loadStored(delivery);
  return {
    async observe(status, now, more = [], recoveries = new Map()) {
      try {
        await loaded;
        await observe(
          delivery,
          options.reminderMs,
          status,
          now,
          [...currentProblems(status, now), ...more],
          recoveries,
        );
      } catch (error) {
        options.log.warn(`alerts: ${(error as Error).message}`, { event: 'alerts' });
      }
    },
    async idle() {
      await loaded;
      while (delivery.loops.size > 0) await Promise.all(delivery.loops.values());
      await delivery.saving;
    },
    async stop() {
      delivery.stopping.abort();
      await loaded;
      await Promise.all(delivery.loops.values());
      await delivery.saving;
    },
  };
}

/** The known problems and the outbox the last run left, read back (what cannot be read is logged), then sent. */
async function loadStored(delivery: Delivery): Promise<void> {
  const { log, stateDir, limit } = delivery;
  const { active, outbox, problem } = await readStored(stateDir);
  if (problem !== undefined)
    log.warn(
      `alerts: ${alertsFile(stateDir)} is unreadable, known problems and undelivered alerts are lost: ${problem}`,
      {
        event: 'alerts',
      },
    );
  const restored = restoreOutbox(outbox, channelNames(delivery), limit);
  if (restored.unreadable > 0)
    log.warn(`alerts: ${restored.unreadable} undelivered alert(s) in ${alertsFile(stateDir)} unreadable, left out`, {
      event: 'alerts',
    });
  logDropped(delivery, restored.dropped);
  delivery.stored = { active, outbox: restored.outbox };
  kick(delivery);
}

const channelNames = (delivery: Delivery) => delivery.channels.map((channel: Channel) => channel.name);

/** The problems now compared with the known ones: a message queued when any started, ended or is due a reminder. */
async function observe(
  delivery: Delivery,
  reminderMs: number,
  status: Status,
  now: Date,
  problems: Problem[],
  recoveries: ReadonlyMap<string, string>,
): Promise<void> {
  const compared = compareProblems(delivery.stored, problems, now, reminderMs, recoveries);
  let outbox = delivery.stored.outbox;
  if (compared.events.length > 0) {
    const message = {
      id: randomUUID(),
      at: now.toISOString(),
      level: messageLevel(assessHealth(status, now).level, problems),
      events: compared.events,
      text: messageText(compared.events),
    };
    const queued = enqueue(outbox, message, channelNames(delivery), delivery.limit);
    logDropped(delivery, queued.dropped);
    outbox = queued.outbox;
  }
  delivery.stored = { ...compared.state, outbox };
  // Written before any delivery starts: a message is in the file before a receiver can have it.
  await save(delivery);
  kick(delivery);
}
