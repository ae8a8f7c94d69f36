// The `control:` block of the config: the Telegram control bot of `ratefile start` (src/service/control/). The token
// is never in the file (an environment variable names it, as for the alerts' Telegram channel); who may act is a
// list of Telegram user ids with a role, so a chat alone never authorises: anyone added to a group would inherit it.
import { z } from 'zod';
import { duration, text } from '../base/config/fields.js';
import { envName, url } from './alerts.js';

const atLeastASecond = () =>
  duration.refine((value) => value >= 1000, { error: 'expected a duration of 1s or more, like "10m"' });

export const controlRoles = ['viewer', 'operator'] as const;
export type ControlRole = (typeof controlRoles)[number];

/** What can wait for a second operator: `accept-hard` is accepting a jump past the guards' hard bound. */
export const confirmKinds = ['accept-hard', 'accept', 'maintenance', 'pause', 'resume'] as const;
export type ConfirmKind = (typeof confirmKinds)[number];

const person = z.strictObject({
  id: z
    .int({ error: 'expected a Telegram user id (a whole number; a chat id never authorises)' })
    .min(1, { error: 'expected a Telegram user id (a positive number; a chat id never authorises)' })
    .describe("The person's Telegram user id (the bot's refusal names it: `user 123456789 is not on the list`)."),
  name: text(/^[\p{L}\p{N} ._-]{1,40}$/u, 'a short name like "anna"')
    .optional()
    .describe('How the bot and the control log name them (default: the id).'),
  role: z
    .enum(controlRoles)
    .describe('viewer: /status and /explain; operator: also /pause, /resume, /accept, /maintenance, /confirm.'),
});

const telegram = z
  .strictObject({
    tokenEnv: envName
      .default('TELEGRAM_BOT_TOKEN')
      .describe("Environment variable holding the bot's token (from @BotFather); the same bot as the alerts' is fine."),
    baseUrl: url
      .default('https://api.telegram.org')
      .describe('Bot API base URL (tests point it at a loopback server).'),
    people: z
      .array(person)
      .min(1, { error: 'expected at least one person' })
      .describe('Who may command, by Telegram user id, each with a role.'),
    chats: z
      .array(z.int({ error: 'expected a Telegram chat id like -1001234567890' }))
      .default([])
      .describe('Group chats where commands are taken (ids like -1001234567890); others are refused.'),
    private: z
      .boolean()
      .default(true)
      .describe('Whether the people may also command in their own private chat with the bot.'),
    confirm: z
      .strictObject({
        commands: z
          .array(z.enum(confirmKinds))
          .default(['accept-hard', 'maintenance'])
          .describe(
            'What waits for a second operator: accept-hard (accepting a jump past the hard bound), accept, maintenance, pause, resume.',
          ),
        within: atLeastASecond()
          .default(600_000)
          .describe('How long a command waits for the second operator before it expires (default 10m).'),
      })
      .default({ commands: ['accept-hard', 'maintenance'], within: 600_000 })
      .describe('Two-person confirmation for what can cost the most.'),
    limit: z
      .strictObject({
        commands: z.int().min(1).max(1000).default(10).describe('Commands a person may give…'),
        per: atLeastASecond().default(60_000).describe('…in this long (default 1m); beyond, refused (said once).'),
      })
      .default({ commands: 10, per: 60_000 })
      .describe('A rate limit per person (and one shared by everyone not on the list).'),
    maxAge: atLeastASecond()
      .default(300_000)
      .describe('A command sent longer ago than this (the bot was down, a failover) is refused (default 5m).'),
  })
  .superRefine((block, context) => {
    const ids = block.people.map((p) => p.id);
    ids.forEach((id, index) => {
      if (ids.indexOf(id) !== index)
        context.addIssue({
          code: 'custom',
          path: ['people', index, 'id'],
          message: `expected each id once, got ${id} again`,
        });
    });
    const operators = block.people.filter((p) => p.role === 'operator').length;
    if (block.confirm.commands.length > 0 && operators < 2)
      context.addIssue({
        code: 'custom',
        path: ['confirm', 'commands'],
        message: `expected at least two operators in people to confirm ${block.confirm.commands.join(', ')}, got ${operators} (or set commands: [])`,
      });
  });

export const controlSchema = z
  .strictObject({ telegram })
  .optional()
  .describe('Operate from a phone: the Telegram control bot of `ratefile start` (long polling, no inbound port).');

export type ControlConfig = NonNullable<z.output<typeof controlSchema>>;
export type ControlTelegram = ControlConfig['telegram'];
export type ControlPerson = ControlTelegram['people'][number];
