// The notifier's delivery (src/service/alerts/notifier.ts): the outbox saved to `.ratefile/alerts.json` before anything is
// sent, and one loop per channel owed messages, retrying with backoff until the channel takes them, in order.
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from '../../base/log.js';
import { writeStateFile } from '../../io/state/state-files.js';
import { RejectedAlert, type Channel, type ChannelName } from './channels.js';
import { nextFor, settle, type Dropped, type PendingMessage } from './outbox.js';
import type { AlertEvent, AlertState } from './problems.js';

/** What `.ratefile/alerts.json` holds. */
export interface Stored extends AlertState {
  outbox: PendingMessage[];
}

export const alertsFile = (stateDir: string) => join(stateDir, 'alerts.json');

/** The notifier's state: what is stored, the channels' loops, and the save under way. */
export interface Delivery {
  channels: readonly Channel[];
  stateDir: string;
  log: Logger;
  backoff: (attempt: number) => number;
  wait: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Messages kept undelivered at most. */
  limit: number;
  stopping: AbortController;
  stored: Stored;
  /** One delivery loop per channel while it is owed messages: a slow channel holds up only itself. */
  loops: Map<ChannelName, Promise<void>>;
  failing: Set<ChannelName>;
  saving: Promise<void>;
}

const defaultBackoff = (attempt: number) => Math.min(30_000, 1000 * 2 ** (attempt - 1));
const defaultWait = (ms: number, signal: AbortSignal) =>
  delay(ms, undefined, { signal, ref: false }).catch(() => undefined);

export function openDelivery(options: {
  channels: readonly Channel[];
  stateDir: string;
  log: Logger;
  backoffMs?: (attempt: number) => number;
  wait?: (ms: number, signal: AbortSignal) => Promise<void>;
  outboxLimit?: number;
}): Delivery {
  return {
    channels: options.channels,
    stateDir: options.stateDir,
    log: options.log,
    backoff: options.backoffMs ?? defaultBackoff,
    wait: options.wait ?? defaultWait,
    limit: options.outboxLimit ?? 200,
    stopping: new AbortController(),
    stored: { active: {}, outbox: [] },
    loops: new Map(),
    failing: new Set(),
    saving: Promise.resolve(),
  };
}

const labels: Record<AlertEvent['kind'], string> = { start: 'PROBLEM', reminder: 'STILL', end: 'RESOLVED' };
/** A message in a log line by its id and events (keys only: texts can be long). */
const described = (message: PendingMessage) => {
  const events = message.events
    .slice(0, 3)
    .map((event) => `${labels[event.kind]} ${event.key}`)
    .join(', ');
  return `alert ${message.id} (${events}${message.events.length > 3 ? `, +${message.events.length - 3}` : ''})`;
};

export function logDropped(delivery: Delivery, dropped: readonly Dropped[]): void {
  const { log, limit } = delivery;
  for (const { message, channels, why } of dropped) {
    const fields = { event: 'alert-dropped', id: message.id, channels, why };
    if (why === 'superseded')
      log.info(
        `${described(message)} not sent to ${channels.join(', ')}: a later message reports the same problems`,
        fields,
      );
    else if (why === 'full')
      log.warn(
        `${described(message)} dropped undelivered for ${channels.join(', ')}: more than ${limit} alerts waiting`,
        fields,
      );
    else
      log.warn(
        `${described(message)} dropped undelivered for ${channels.join(', ')}: no such channel configured any more`,
        fields,
      );
  }
}

/** Writes the state as it is when the write starts; writes never overlap, so the last one holds the latest. */
export function save(delivery: Delivery): Promise<void> {
  delivery.saving = delivery.saving.then(async () => {
    try {
      await writeStateFile(alertsFile(delivery.stateDir), `${JSON.stringify(delivery.stored, null, 2)}\n`);
    } catch (error) {
      delivery.log.warn(`alerts: ${(error as Error).message}`, { event: 'alerts' });
    }
  });
  return delivery.saving;
}

/** Starts a channel's loop unless it runs; started a tick later, so the loop's own delete never precedes this set. */
export function kick(delivery: Delivery): void {
  for (const channel of delivery.channels) {
    if (delivery.loops.has(channel.name) || delivery.stopping.signal.aborted) continue;
    delivery.loops.set(
      channel.name,
      Promise.resolve().then(() => deliver(delivery, channel)),
    );
  }
}

/** A channel's loop: its next message sent until none is owed (or the notifier stops). */
async function deliver(delivery: Delivery, channel: Channel): Promise<void> {
  let attempt = 0;
  for (;;) {
    // Only what is in the file is sent: a crash then resends it under its id rather than making a new one.
    await delivery.saving;
    const message = delivery.stopping.signal.aborted ? undefined : nextFor(delivery.stored.outbox, channel.name);
    if (!message) {
      delivery.loops.delete(channel.name);
      return;
    }
    try {
      await sendOnce(channel, message, delivery.stopping.signal);
    } catch (error) {
      if (delivery.stopping.signal.aborted) continue;
      if (error instanceof RejectedAlert) {
        await givenUp(delivery, channel, message, error);
        attempt = 0;
        continue;
      }
      attempt += 1;
      await retryLater(delivery, channel, error, attempt);
      continue;
    }
    attempt = 0;
    await delivered(delivery, channel, message);
  }
}

async function givenUp(delivery: Delivery, channel: Channel, message: PendingMessage, error: RejectedAlert) {
  delivery.log.error(
    `${described(message)} given up on ${channel.name}: the receiver rejects it (${error.message}), retrying cannot help`,
    { event: 'alert-dropped', id: message.id, channels: [channel.name], why: 'rejected' },
  );
  delivery.stored = { ...delivery.stored, outbox: settle(delivery.stored.outbox, message.id, channel.name) };
  await save(delivery);
}

async function retryLater(delivery: Delivery, channel: Channel, error: unknown, attempt: number) {
  if (!delivery.failing.has(channel.name)) {
    delivery.failing.add(channel.name);
    delivery.log.warn(`alert channel ${channel.name} failing, retrying until it works: ${(error as Error).message}`, {
      event: 'alert-channel',
      channel: channel.name,
      ok: false,
    });
  }
  await delivery.wait(delivery.backoff(attempt), delivery.stopping.signal);
}

async function delivered(delivery: Delivery, channel: Channel, message: PendingMessage) {
  if (delivery.failing.delete(channel.name))
    delivery.log.info(`alert channel ${channel.name} works again`, {
      event: 'alert-channel',
      channel: channel.name,
      ok: true,
    });
  delivery.stored = { ...delivery.stored, outbox: settle(delivery.stored.outbox, message.id, channel.name) };
  await save(delivery);
}

/**
 * One delivery attempt, abandoned when the notifier stops: a signal of its own (listeners on the long-lived
 * `stopping` signal are removed again), and not awaited past the stop where a channel cannot cancel (SMTP).
 */
async function sendOnce(channel: Channel, message: PendingMessage, stopping: AbortSignal): Promise<void> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  stopping.addEventListener('abort', stop, { once: true });
  try {
    await new Promise<void>((resolve, reject) => {
      controller.signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true });
      channel.send(message, controller.signal).then(resolve, reject);
    });
  } finally {
    stopping.removeEventListener('abort', stop);
  }
}
