// The alert outbox: messages not yet delivered, oldest first, each with the channels still owed it. Pure.
// A message leaves the outbox when every channel has it, when a later message makes it moot (superseded), or
// when the outbox is full (the oldest goes). Starts and ends are never superseded: a receiver hears of a
// problem before its end, even when both wait out an outage together.
import type { AlertMessage, ChannelName } from './channels.js';

export interface PendingMessage extends AlertMessage {
  /** The channels that have not had it yet, in no particular order. */
  channels: ChannelName[];
}

/** Why a message left the outbox undelivered on a channel: the notifier logs each. */
export interface Dropped {
  message: PendingMessage;
  channels: ChannelName[];
  /** superseded: a later message says it; full: the outbox holds at most its limit; unconfigured: the channel is no longer in the config. */
  why: 'superseded' | 'full' | 'unconfigured';
}

/**
 * Whether `message` says nothing on `channel` that a later one pending there does not: it holds only reminders,
 * and each reminder's problem is in a later message (a newer reminder, or its end).
 */
function moot(outbox: readonly PendingMessage[], index: number, channel: ChannelName): boolean {
  const message = outbox[index];
  if (!message || message.events.some((event) => event.kind !== 'reminder')) return false;
  const later = new Set<string>();
  for (const next of outbox.slice(index + 1)) {
    if (next.channels.includes(channel)) for (const event of next.events) later.add(event.key);
  }
  return message.events.every((event) => later.has(event.key));
}

/** The outbox with `message` added for `channels`, superseded reminders taken out, and at most `limit` messages. */
export function enqueue(
  outbox: readonly PendingMessage[],
  message: AlertMessage,
  channels: readonly ChannelName[],
  limit: number,
): { outbox: PendingMessage[]; dropped: Dropped[] } {
  const dropped: Dropped[] = [];
  const all = channels.length > 0 ? [...outbox, { ...message, channels: [...channels] }] : [...outbox];
  const kept: PendingMessage[] = [];
  all.forEach((pending, index) => {
    const gone = pending.channels.filter((channel) => moot(all, index, channel));
    if (gone.length > 0) dropped.push({ message: pending, channels: gone, why: 'superseded' });
    const left = pending.channels.filter((channel) => !gone.includes(channel));
    if (left.length > 0) kept.push(left.length === pending.channels.length ? pending : { ...pending, channels: left });
  });
  const over = Math.max(0, kept.length - limit);
  for (const pending of kept.slice(0, over))
    dropped.push({ message: pending, channels: pending.channels, why: 'full' });
  return { outbox: kept.slice(over), dropped };
}

/** The oldest message still owed to `channel`: channels get their messages in the order they were made. */
export function nextFor(outbox: readonly PendingMessage[], channel: ChannelName): PendingMessage | undefined {
  return outbox.find((pending) => pending.channels.includes(channel));
}

/** The outbox once `channel` has message `id` (delivered, or given up): the message goes when no channel is owed it. */
export function settle(outbox: readonly PendingMessage[], id: string, channel: ChannelName): PendingMessage[] {
  return outbox.flatMap((pending) => {
    if (pending.id !== id) return [pending];
    const left = pending.channels.filter((name) => name !== channel);
    return left.length > 0 ? [{ ...pending, channels: left }] : [];
  });
}

const kinds = new Set(['start', 'end', 'reminder']);
const isText = (value: unknown): value is string => typeof value === 'string';

/**
 * The outbox as read back from the state file: entries of another shape are left out (counted), channels no
 * longer configured are dropped from each message, and only the newest `limit` messages are kept.
 */
export function restoreOutbox(
  data: unknown,
  channels: readonly ChannelName[],
  limit: number,
): { outbox: PendingMessage[]; unreadable: number; dropped: Dropped[] } {
  const entries = Array.isArray(data) ? data : [];
  const outbox: PendingMessage[] = [];
  const dropped: Dropped[] = [];
  let unreadable = data === undefined || Array.isArray(data) ? 0 : 1;
  for (const entry of entries as unknown[]) {
    const e = entry as Partial<Record<keyof PendingMessage, unknown>> | null;
    const events = Array.isArray(e?.events) ? (e.events as unknown[]) : undefined;
    const valid =
      e !== null &&
      isText(e.id) &&
      isText(e.at) &&
      isText(e.level) &&
      isText(e.text) &&
      Array.isArray(e.channels) &&
      e.channels.every(isText) &&
      events?.every((event) => {
        const v = event as Record<string, unknown> | null;
        return (
          v !== null && typeof v === 'object' && isText(v.kind) && kinds.has(v.kind) && isText(v.key) && isText(v.text)
        );
      });
    if (!valid) {
      unreadable += 1;
      continue;
    }
    const message = entry as PendingMessage;
    const gone = message.channels.filter((channel) => !channels.includes(channel));
    if (gone.length > 0) dropped.push({ message, channels: gone, why: 'unconfigured' });
    const left = message.channels.filter((channel) => channels.includes(channel));
    if (left.length > 0) outbox.push({ ...message, channels: left });
  }
  const over = Math.max(0, outbox.length - limit);
  for (const pending of outbox.slice(0, over))
    dropped.push({ message: pending, channels: pending.channels, why: 'full' });
  return { outbox: outbox.slice(over), unreadable, dropped };
}
