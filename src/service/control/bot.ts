// The control bot of `ratefile start` (`control: telegram:`): long polling with getUpdates, so no inbound port is
// needed (it works behind NAT), one batch at a time. A batch's update ids are saved as seen before any is acted on
// (a replay is refused, src/pure/control/replay.ts), then each update is handled in order (handle.ts). Under
// `ha:` only the leader polls: a standby never calls the API, so it answers nothing and leaves every update to the
// leader (Telegram keeps them until a getUpdates confirms them). The token is registered as a secret at once.
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from '../../base/log.js';
import { registerSecret } from '../../base/secrets.js';
import { openControlLog } from '../../io/control/log.js';
import { readSeen, writeSeen } from '../../io/control/seen.js';
import { BotApiError, callBotApi } from '../../io/telegram/bot-api.js';
import type { ControlTelegram } from '../../model/control.js';
import { buttonKey } from '../../pure/control/buttons.js';
import { RateLimit } from '../../pure/control/limit.js';
import { noteUpdates } from '../../pure/control/replay.js';
import { asUpdate } from '../../pure/control/update.js';
import type { HaStatus, Status } from '../../pure/status/report.js';
import type { Config } from '../../model/config.js';
import { readStatus } from '../../io/build/cycle.js';
import { type CommandRunner, type ControlBot, record } from './context.js';
import { handleUpdate } from './handle.js';
import { expireWaiting } from './waiting.js';

export interface ControlOptions {
  telegram: ControlTelegram;
  stateDir: string;
  env: Readonly<Record<string, string | undefined>>;
  fetch: typeof globalThis.fetch;
  now: () => Date;
  log: Logger;
  /** This instance's role under `ha:` (always leader without it), asked before every poll. */
  role: () => 'leader' | 'standby';
  run: CommandRunner;
  status: () => Promise<Status | undefined>;
  /** getUpdates' long-polling timeout (default 25 s). */
  pollSeconds?: number;
  /** How often a standby asks its role again (default 2 s). */
  roleCheckMs?: number;
  /** Ids of waiting commands (default 6 random hex digits). */
  newId?: () => string;
}

export interface Control {
  /** Ends the poll under way and waits for the control log. */
  stop(): Promise<void>;
  /** Resolves once every control log entry made so far is written (tests). */
  idle(): Promise<void>;
}

const UPDATE_KINDS = ['message', 'edited_message', 'callback_query'];

const wait = (ms: number, signal: AbortSignal) => delay(ms, undefined, { signal }).catch(() => undefined);

export function openControl(options: ControlOptions): Control {
  const { telegram, log } = options;
  const token = options.env[telegram.tokenEnv];
  if (!token) {
    log.warn(`control: ${telegram.tokenEnv} is not set: the control bot is off`, { event: 'control' });
    return { stop: async () => undefined, idle: async () => undefined };
  }
  registerSecret(token);
  const bot: ControlBot = {
    telegram,
    api: { baseUrl: telegram.baseUrl, token, fetch: options.fetch, timeoutMs: 15_000 },
    key: buttonKey(token),
    stateDir: options.stateDir,
    log,
    journal: openControlLog(options.stateDir, (line) => log.warn(line, { event: 'control' })),
    now: options.now,
    run: options.run,
    status: options.status,
    newId: options.newId ?? (() => randomBytes(3).toString('hex').toUpperCase()),
    limit: new RateLimit(telegram.limit.commands, telegram.limit.per),
    username: undefined,
    seen: [],
    waiting: [],
    notices: new Map(),
  };
  const stopping = new AbortController();
  const loop = poll(bot, options, stopping.signal);
  return {
    async stop() {
      stopping.abort();
      await loop;
      await bot.journal.idle();
    },
    idle: () => bot.journal.idle(),
  };
}

/** The polling loop: standby waits, leader asks for updates and handles them; failures retried with backoff. */
async function poll(bot: ControlBot, options: ControlOptions, signal: AbortSignal): Promise<void> {
  const pollSeconds = options.pollSeconds ?? 25;
  bot.seen = await readSeen(bot.stateDir);
  let offset: number | undefined;
  let failures = 0;
  let role: 'leader' | 'standby' | undefined;
  while (!signal.aborted) {
    const now = options.role();
    if (now !== role)
      bot.log.info(`control: ${now === 'leader' ? 'answering commands' : 'standby: the leader answers commands'}`, {
        event: 'control',
      });
    role = now;
    if (now !== 'leader') {
      await wait(options.roleCheckMs ?? 2000, signal);
      continue;
    }
    try {
      bot.username ??= (await callBotApi<{ username?: string }>(bot.api, 'getMe', {}, { signal }))?.username;
      const params = {
        ...(offset === undefined ? {} : { offset }),
        timeout: pollSeconds,
        allowed_updates: UPDATE_KINDS,
      };
      const updates = await callBotApi<unknown>(bot.api, 'getUpdates', params, {
        signal,
        timeoutMs: (pollSeconds + 15) * 1000,
      });
      if (failures > 0) bot.log.info('control: the Bot API answers again', { event: 'control' });
      failures = 0;
      // The lock lost while waiting: the updates stay unconfirmed, for the new leader.
      if (options.role() !== 'leader' || signal.aborted) continue;
      offset = await handleBatch(bot, Array.isArray(updates) ? updates : [], offset);
    } catch (error) {
      if (signal.aborted) break;
      failures += 1;
      if (failures === 1)
        bot.log.warn(`control: ${failureText(error)}; retrying until it answers`, { event: 'control' });
      const asked = error instanceof BotApiError ? error.retryAfterSeconds : undefined;
      await wait(asked === undefined ? Math.min(30_000, 1000 * 2 ** (failures - 1)) : asked * 1000, signal);
    }
    await expireWaiting(bot);
  }
}

function failureText(error: unknown): string {
  const status = error instanceof BotApiError ? error.status : undefined;
  const message = (error as Error).message;
  if (status === 401 || status === 404) return `the Bot API refuses the token (${message}): check the token variable`;
  if (status === 409) return `another poller or a webhook holds this bot (${message}): one instance polls a token`;
  return `getUpdates failed: ${message}`;
}

/** Saves the batch's ids as seen, then handles each update in order; returns the offset confirming them. */
async function handleBatch(
  bot: ControlBot,
  raw: readonly unknown[],
  offset: number | undefined,
): Promise<number | undefined> {
  const updates = raw.flatMap((value) => asUpdate(value) ?? []);
  if (updates.length === 0) return offset;
  const at = bot.now().getTime();
  const noted = noteUpdates(
    bot.seen,
    updates.map((update) => update.update_id),
    at,
    Math.max(2 * bot.telegram.maxAge, 3_600_000),
  );
  bot.seen = noted.seen;
  await writeSeen(bot.stateDir, noted.seen).catch((error: unknown) =>
    bot.log.warn(`control: cannot save the updates seen: ${(error as Error).message}`, { event: 'control' }),
  );
  for (const update of updates) {
    if (noted.fresh.delete(update.update_id)) await handleUpdate(bot, update);
    else
      record(bot, {
        update: update.update_id,
        outcome: 'refused',
        reason: `update ${update.update_id} was handled already (a replay): not run again`,
      });
  }
  return Math.max(...updates.map((update) => update.update_id)) + 1;
}

/**
 * The control bot `ratefile start` runs when the config has `control:` (undefined otherwise): its role is the
 * standby logic's own view, asked before each poll, as the server asks it before each request (src/service/ha/serve.ts).
 */
export function startControl(
  config: Config,
  options: Pick<ControlOptions, 'env' | 'fetch' | 'now' | 'log'> & {
    standby: { status(): HaStatus } | undefined;
    run: CommandRunner | undefined;
  },
): Control | undefined {
  const telegram = config.control?.telegram;
  if (!telegram) return undefined;
  if (!options.run) throw new Error('control: the service was started without the CLI to run commands with');
  const { standby } = options;
  return openControl({
    ...options,
    run: options.run,
    telegram,
    stateDir: config.stateDir,
    role: () => (standby ? standby.status().role : 'leader'),
    status: () => readStatus(config.stateDir),
  });
}
