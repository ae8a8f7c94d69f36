// The inline buttons of an alert sent to a control chat: for a held jump "Accept 1 : 97949 for BTC → SBERRUB", then
// "Pause" and "Show" (explain); for a direction withheld for another fault, "Pause" and "Show". A button only runs
// through the control bot, as the same command typed (authorised, rate-limited, confirmed by a second operator
// where the config says so), so alerts carry them only when the alert channel's bot is the control bot (same token
// and API) and its chat is one where commands are taken.
import { Decimal, parseDecimal } from '../../base/decimal.js';
import { directionNameOfId, show } from '../../base/words.js';
import type { Config } from '../../model/config.js';
import { buttonData, buttonKey } from '../../pure/control/buttons.js';
import type { Typed } from '../../pure/control/commands.js';
import type { Status } from '../../pure/status/report.js';
import type { AlertMessage } from '../alerts/channels.js';

type Button = { text: string; callback_data: string };

/** At most this many directions get buttons in one message: more is a case for /status. */
const MAX_DIRECTIONS = 4;

/** "1 : 97949" (a rate to units per from unit, in the published form: one side 1), or the text as the file has it. */
function rateShown(text: string): string | undefined {
  const rate = parseDecimal(text);
  if (!rate) return /^[\d.]+ : [\d.]+$/.test(text) ? text : undefined;
  if (rate.isZero()) return undefined;
  return rate.greaterThanOrEqualTo(1) ? `1 : ${show(rate)}` : `${show(new Decimal(1).div(rate))} : 1`;
}

/** The rate a held jump would publish, from the status file's held-back entry (`jump.rate`), when it says one. */
function heldRate(status: Status | undefined, id: string): string | undefined {
  const held = status?.heldBack.find((entry) => entry.direction === id) as { jump?: { rate?: unknown } } | undefined;
  const rate = held?.jump?.rate;
  return typeof rate === 'string' && rate.length <= 60 ? rateShown(rate) : undefined;
}

/** The rows of buttons for the directions an alert's open problems name (jumps and faults), or none. */
export function alertKeyboard(
  message: Pick<AlertMessage, 'events'>,
  status: Status | undefined,
  at: Date,
  key: Buffer,
): Button[][] {
  const named = new Map<string, boolean>();
  for (const event of message.events) {
    const match = event.kind === 'end' ? null : /^(jump|withheld):([A-Z0-9]+>[A-Z0-9]+)$/.exec(event.key);
    if (match) named.set(match[2]!, (named.get(match[2]!) ?? false) || match[1] === 'jump');
  }
  const directions = [...named].slice(0, MAX_DIRECTIONS);
  const button = (text: string, command: Typed): Button => ({ text, callback_data: buttonData(command, at, key) });
  return directions.flatMap(([id, jump]) => {
    const [from = '', to = ''] = id.split('>');
    const name = directionNameOfId(id);
    const rate = heldRate(status, id);
    const suffix = directions.length > 1 ? ` ${name}` : '';
    return [
      ...(jump
        ? [[button(`Accept ${rate === undefined ? '' : `${rate} for `}${name}`, { name: 'accept', args: [from, to] })]]
        : []),
      [
        button(`Pause${suffix}`, { name: 'pause', args: [from, to] }),
        button(`Show${suffix}`, { name: 'explain', args: [from, to] }),
      ],
    ];
  });
}

/**
 * What the alerts' Telegram channel adds to each message (ChannelOptions.telegramButtons), or undefined when its
 * messages do not reach the control bot: no `control:`, another token or API, or a chat where commands are not taken.
 */
export function alertButtons(
  config: Config,
  env: Readonly<Record<string, string | undefined>>,
  status: () => Status | undefined,
  now: () => Date,
): ((message: AlertMessage) => Record<string, unknown> | undefined) | undefined {
  const control = config.control?.telegram;
  const alerts = config.alerts?.telegram;
  if (!control || !alerts) return undefined;
  const token = env[control.tokenEnv];
  if (!token || token !== env[alerts.tokenEnv] || control.baseUrl !== alerts.baseUrl) return undefined;
  const chat = Number(env[alerts.chatIdEnv]);
  const taken = control.chats.includes(chat) || (control.private && control.people.some((p) => p.id === chat));
  if (!taken) return undefined;
  const key = buttonKey(token);
  return (message) => {
    const rows = alertKeyboard(message, status(), now(), key);
    return rows.length === 0 ? undefined : { inline_keyboard: rows };
  };
}
