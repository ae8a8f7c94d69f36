// The control bot on a test project against the Bot API stand-in (test/support/bot-api.ts): the people of the
// tests, a config block naming them, updates made from the fixture templates, and the bot itself (openControl with
// the CLI runner `start` gives it), stopped after each test.
import { afterEach } from 'vitest';
import { controlRunner } from '../../src/commands/control-runner.js';
import { createLogger } from '../../src/base/log.js';
import { readStatus } from '../../src/io/build/cycle.js';
import { loadConfig } from '../../src/io/config/load.js';
import { type Control, openControl } from '../../src/service/control/bot.js';
import { updateTemplates } from './bot-api.js';
import type { Project } from './project.js';
import { fixedNow, offlineFetch } from './run-cli.js';

export const TOKEN = '7311234567:AAHk3x-Control-Token-For-Tests-0042';
export const env = { TELEGRAM_BOT_TOKEN: TOKEN };
export const people = { anna: 111111111, boris: 222222222, vera: 333333333, stranger: 999999999 };
export const GROUP = -1001234567890;
export const OTHER_GROUP = -1009876543210;

/** A `control:` block for the stand-in at `baseUrl`: anna and boris operators, vera a viewer, commands in GROUP. */
export function controlBlock(baseUrl: string, more = ''): string {
  return `control:
  telegram:
    baseUrl: "${baseUrl}"
    chats: [${GROUP}]
    people:
      - { id: ${people.anna}, name: anna, role: operator }
      - { id: ${people.boris}, name: boris, role: operator }
      - { id: ${people.vera}, name: vera, role: viewer }
${more}`;
}

/** A clock the test moves. */
export function testClock(start = fixedNow()) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now = new Date(now.getTime() + ms)) };
}

interface MessageOptions {
  from?: number;
  chat?: number;
  /** Sent at (default: the clock's now). */
  at?: Date;
  /** Fields added to the message (forward_origin, sender_chat…). */
  extra?: Record<string, unknown>;
}

const template = updateTemplates.groupMessage!.message as Record<string, unknown>;

/** A message update typed by `from` (default anna) in `chat` (default GROUP; a positive id is a private chat). */
export function message(text: string, now: Date, options: MessageOptions = {}): Record<string, unknown> {
  const from = options.from ?? people.anna;
  const chatId = options.chat ?? GROUP;
  return {
    message: {
      ...template,
      message_id: Math.floor(Math.random() * 1e6),
      from: { id: from, is_bot: false, first_name: `user${from}` },
      chat:
        chatId > 0
          ? { id: chatId, type: 'private', first_name: `user${chatId}` }
          : { id: chatId, title: 'ops', type: 'supergroup' },
      date: Math.floor((options.at ?? now).getTime() / 1000),
      text,
      entities: [{ offset: 0, length: text.split(' ')[0]!.length, type: 'bot_command' }],
      ...options.extra,
    },
  };
}

/** A button press by `from` (default anna) on a message of the bot in `chat`, with `data`. */
export function press(
  data: string,
  now: Date,
  options: { from?: number; chat?: number } = {},
): Record<string, unknown> {
  const query = updateTemplates.buttonPress!.callback_query as Record<string, unknown>;
  const chatId = options.chat ?? GROUP;
  return {
    callback_query: {
      ...query,
      id: `cb${Math.floor(Math.random() * 1e9)}`,
      from: { id: options.from ?? people.anna, is_bot: false, first_name: 'someone' },
      message: {
        ...(query.message as Record<string, unknown>),
        chat: { id: chatId, type: chatId > 0 ? 'private' : 'supergroup' },
        date: Math.floor(now.getTime() / 1000),
      },
      data,
    },
  };
}

export interface Bot {
  control: Control;
  /** The service log's lines so far. */
  log(): string;
}

/** Starts the control bot of `made` (its config's `control:` block) and stops it after the test. */
export function botsPerTest(): (
  made: Project,
  options?: { now?: () => Date; role?: () => 'leader' | 'standby'; newId?: () => string },
) => Promise<Bot> {
  const running: Control[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((control) => control.stop()));
  });
  return async (made, options = {}) => {
    const config = await loadConfig(made.configPath);
    const now = options.now ?? fixedNow;
    let lines = '';
    const sink = { write: (text: string) => ((lines += text), true) };
    const run = controlRunner(
      {
        stdout: sink,
        stderr: sink,
        env,
        cwd: made.dir,
        now,
        fetch: offlineFetch,
        waitForStop: () => Promise.reject(new Error('not here')),
      },
      made.configPath,
    );
    const control = openControl({
      telegram: config.control!.telegram,
      stateDir: config.stateDir,
      env,
      fetch: globalThis.fetch,
      now,
      log: createLogger(sink, { now }),
      role: options.role ?? (() => 'leader'),
      run,
      status: () => readStatus(config.stateDir),
      ...(options.newId ? { newId: options.newId } : {}),
    });
    running.push(control);
    return { control, log: () => lines };
  };
}
