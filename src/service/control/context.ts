// What the control bot's modules share: its config, the Bot API, the CLI it runs, its memory (waiting commands,
// the rate limit, the updates seen), and how it says things: a message to a chat, an answer to a button, a
// waiting command's buttons taken away. Saying never throws: a failure is logged (without the token) and the bot
// goes on.
import type { Logger } from '../../base/log.js';
import type { ControlLog, ControlLogEntry } from '../../io/control/log.js';
import { callBotApi, type BotApi } from '../../io/telegram/bot-api.js';
import type { ControlPerson, ControlTelegram } from '../../model/control.js';
import type { Waiting } from '../../pure/control/confirm.js';
import type { RateLimit } from '../../pure/control/limit.js';
import type { Origin } from '../../pure/control/authorise.js';
import type { Status } from '../../pure/status/report.js';

/**
 * Runs `ratefile <args>` in this process, against the config file `start` runs (src/commands/control-runner.ts):
 * what it printed, its exit code, and whether it ended in an error (a usage or config problem) instead.
 */
export type CommandRunner = (args: readonly string[]) => Promise<{ code: number; text: string; failed: boolean }>;

/** A message the bot sent, to take its buttons away later. */
export interface Sent {
  chat: number;
  messageId: number;
}

export interface ControlBot {
  telegram: ControlTelegram;
  api: BotApi;
  /** The key of the buttons' signatures (src/pure/control/buttons.ts). */
  key: Buffer;
  stateDir: string;
  log: Logger;
  journal: ControlLog;
  now: () => Date;
  run: CommandRunner;
  status: () => Promise<Status | undefined>;
  newId: () => string;
  limit: RateLimit;
  /** This bot's username once getMe answered. */
  username: string | undefined;
  seen: [number, number][];
  waiting: Waiting[];
  /** The messages showing each waiting command, by its id. */
  notices: Map<string, Sent[]>;
}

/** Telegram takes at most 4096 characters a message; a longer reply is cut and says where the rest is. */
const MAX_TEXT = 4000;

export function cut(text: string, rest: string): string {
  const trimmed = text.trimEnd();
  if (trimmed.length <= MAX_TEXT) return trimmed === '' ? '(nothing printed)' : trimmed;
  const kept = trimmed.slice(0, MAX_TEXT - rest.length - 3);
  return `${kept.slice(0, Math.max(kept.lastIndexOf('\n'), 0) || kept.length)}\n… ${rest}`;
}

export const who = (person: Pick<ControlPerson, 'id' | 'name'>): string =>
  person.name === undefined ? `user ${person.id}` : `${person.name} (${person.id})`;

/** Writes the entry to the control log and a line to the service's log. */
export function record(bot: ControlBot, entry: Omit<ControlLogEntry, 'at'>): void {
  const at = bot.now().toISOString();
  bot.journal.append({ at, ...entry });
  const person = entry.user === undefined ? 'unknown sender' : who({ id: entry.user, name: entry.name });
  const what = entry.command ?? (entry.update === undefined ? 'an update' : `update ${entry.update}`);
  const why = entry.reason ?? entry.reply;
  bot.log.info(`control: ${person} ${what}: ${entry.outcome}${why === undefined ? '' : `: ${why}`}`, {
    event: 'control',
    outcome: entry.outcome,
  });
}

async function call<T>(bot: ControlBot, method: string, params: Record<string, unknown>): Promise<T | undefined> {
  try {
    return await callBotApi<T>(bot.api, method, params);
  } catch (error) {
    bot.log.warn(`control: ${method} failed: ${(error as Error).message}`, { event: 'control' });
    return undefined;
  }
}

/** Sends `text` to `chat` (as a reply to `replyTo` when given), with inline buttons when given. */
export async function say(
  bot: ControlBot,
  chat: number,
  text: string,
  options: { replyTo?: number | undefined; buttons?: { text: string; callback_data: string }[][] } = {},
): Promise<Sent | undefined> {
  const sent = await call<{ message_id?: unknown }>(bot, 'sendMessage', {
    chat_id: chat,
    text,
    ...(options.replyTo === undefined
      ? {}
      : { reply_parameters: { message_id: options.replyTo, allow_sending_without_reply: true } }),
    ...(options.buttons ? { reply_markup: { inline_keyboard: options.buttons } } : {}),
  });
  const messageId = sent?.message_id;
  return typeof messageId === 'number' ? { chat, messageId } : undefined;
}

/** Answers a button press (Telegram shows a spinner until it is answered): at most 200 characters. */
export async function answer(bot: ControlBot, callbackId: string, text: string): Promise<void> {
  const line = text.split('\n')[0] ?? '';
  await call(bot, 'answerCallbackQuery', {
    callback_query_id: callbackId,
    text: line.length > 200 ? `${line.slice(0, 199)}…` : line,
  });
}

/** Takes the buttons off messages (a waiting command's Confirm, once it ran or expired). */
export async function dropButtons(bot: ControlBot, sent: readonly Sent[]): Promise<void> {
  await Promise.all(
    sent.map((message) =>
      call(bot, 'editMessageReplyMarkup', {
        chat_id: message.chat,
        message_id: message.messageId,
        reply_markup: { inline_keyboard: [] },
      }),
    ),
  );
}

/** What a command's reply goes back to: the chat (replying to the message) and the button pressed, if one was. */
export interface Asker {
  person: ControlPerson;
  origin: Origin & { chat: { id: number } };
  update: number;
  /** The command as typed, for the log. */
  typed: string;
}

/** Says `text` where the update came from: in its chat, and as the answer to its button. */
export async function reply(bot: ControlBot, origin: Origin, text: string): Promise<void> {
  await Promise.all([
    origin.chat ? say(bot, origin.chat.id, text, { replyTo: origin.messageId }) : undefined,
    origin.callbackId === undefined ? undefined : answer(bot, origin.callbackId, text),
  ]);
}

/** The control log's fields of who asked what, where. */
export const askerEntry = (asker: Asker) => ({
  update: asker.update,
  user: asker.person.id,
  ...(asker.person.name === undefined ? {} : { name: asker.person.name }),
  chat: asker.origin.chat.id,
  command: asker.typed,
});
