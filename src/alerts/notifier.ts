// The alert notifier: after each build, what started, ended or still lasts (a reminder), as one message per
// channel. Delivery runs in the background with retries and backoff, so a channel that is down never delays a
// build; a failing channel is logged once. Known problems are kept in `.ratefile/alerts.json` across restarts.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { assessHealth } from '../health.js';
import type { Logger } from '../log.js';
import type { Status } from '../status.js';
import type { Channel, AlertMessage } from './channels.js';
import { compareProblems, currentProblems, messageText, type AlertState } from './problems.js';

export interface NotifierOptions {
  channels: readonly Channel[];
  stateDir: string;
  reminderMs: number;
  log: Logger;
  /** Delay before retry n (1-based); default 1 s, 2 s, 4 s… up to 5 minutes. Tests pass a short one. */
  backoffMs?: (attempt: number) => number;
  /** Attempts per message and channel before it is dropped (logged). */
  attempts?: number;
}

export interface Notifier {
  /** Compare this build's status with the known problems and queue a message if anything changed; never throws. */
  observe(status: Status, now: Date): Promise<void>;
  /** Resolves once every queued message is delivered or given up (tests, and a clean stop). */
  idle(): Promise<void>;
}

const file = (stateDir: string) => join(stateDir, 'alerts.json');

async function readState(stateDir: string): Promise<AlertState> {
  try {
    const data = JSON.parse(await readFile(file(stateDir), 'utf8')) as AlertState;
    return typeof data.active === 'object' && data.active !== null ? data : { active: {} };
  } catch {
    return { active: {} };
  }
}

async function writeState(stateDir: string, state: AlertState): Promise<void> {
  await mkdir(stateDir, { recursive: true });
  const temporary = `${file(stateDir)}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(state, null, 2)}\n`);
  await rename(temporary, file(stateDir));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

export function createNotifier(options: NotifierOptions): Notifier {
  const backoff = options.backoffMs ?? ((attempt) => Math.min(300_000, 1000 * 2 ** (attempt - 1)));
  const attempts = options.attempts ?? 6;
  let state: AlertState | undefined;
  // One queue per channel: messages go out in order, and a slow channel holds up only itself.
  const queues = new Map(options.channels.map((channel) => [channel.name, Promise.resolve()]));
  const failing = new Set<string>();

  const deliver = async (channel: Channel, message: AlertMessage) => {
    for (let attempt = 1; attempt <= attempts; attempt += 1) {
      try {
        await channel.send(message);
        if (failing.delete(channel.name)) options.log.info(`alert channel ${channel.name} works again`, { event: 'alert-channel', channel: channel.name, ok: true });
        return;
      } catch (error) {
        if (!failing.has(channel.name)) {
          failing.add(channel.name);
          options.log.warn(`alert channel ${channel.name} failing, retrying: ${(error as Error).message}`, { event: 'alert-channel', channel: channel.name, ok: false });
        }
        if (attempt < attempts) await sleep(backoff(attempt));
      }
    }
  };

  return {
    async observe(status, now) {
      try {
        state ??= await readState(options.stateDir);
        const compared = compareProblems(state, currentProblems(status, now), now, options.reminderMs);
        state = compared.state;
        await writeState(options.stateDir, state);
        if (compared.events.length === 0) return;
        const message: AlertMessage = { at: now.toISOString(), level: assessHealth(status, now).level, events: compared.events, text: messageText(compared.events) };
        for (const channel of options.channels) {
          queues.set(channel.name, (queues.get(channel.name) ?? Promise.resolve()).then(() => deliver(channel, message)));
        }
      } catch (error) {
        options.log.warn(`alerts: ${(error as Error).message}`, { event: 'alerts' });
      }
    },
    async idle() {
      await Promise.all(queues.values());
    },
  };
}
