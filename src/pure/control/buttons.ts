// The data of the bot's inline buttons, signed: a Telegram client sends back whatever callback data it likes, so
// a button's command is only run when its HMAC verifies (the key is made from the bot's token, which no client
// has). `a:BTC:SBERRUB:<issued>:<mac>` is at most 59 bytes for two 16-character codes (the API allows 64). Pure.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Typed } from './commands.js';

/** A button's command by its letter: the alert buttons (Accept, Pause, Show) and a waiting command's Confirm. */
const commands = new Map([
  ['a', 'accept'],
  ['p', 'pause'],
  ['s', 'explain'],
  ['c', 'confirm'],
]);
const letters = new Map([...commands].map(([letter, name]) => [name, letter]));

/** How long a button works: an alert's buttons are pressed within a day, or the command is typed. */
export const BUTTON_LIFE_MS = 86_400_000;

/** The signing key of a bot's buttons: derived from its token, so it needs no file and changes with the token. */
export const buttonKey = (token: string): Buffer =>
  createHmac('sha256', token).update('ratefile control buttons').digest();

const macOf = (payload: string, key: Buffer) =>
  createHmac('sha256', key).update(payload).digest().subarray(0, 12).toString('base64url');

/** The callback data of a button running `command` (accept, pause, explain FROM TO; confirm ID), made at `at`. */
export function buttonData(command: Typed, at: Date, key: Buffer): string {
  const letter = letters.get(command.name);
  if (letter === undefined) throw new Error(`no button runs /${command.name}`);
  const payload = [letter, ...command.args, Math.floor(at.getTime() / 1000).toString(36)].join(':');
  return `${payload}:${macOf(payload, key)}`;
}

/** The command a button's data says and when it was made, or undefined when the data was not made with `key`. */
export function readButton(data: string, key: Buffer): { command: Typed; at: Date } | undefined {
  const cut = data.lastIndexOf(':');
  if (cut <= 0 || data.length > 64) return undefined;
  const payload = data.slice(0, cut);
  const given = Buffer.from(data.slice(cut + 1));
  const expected = Buffer.from(macOf(payload, key));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const [letter = '', ...rest] = payload.split(':');
  const issued = Number.parseInt(rest.pop() ?? '', 36);
  const name = commands.get(letter);
  if (name === undefined || !Number.isSafeInteger(issued)) return undefined;
  return { command: { name, args: rest }, at: new Date(issued * 1000) };
}
