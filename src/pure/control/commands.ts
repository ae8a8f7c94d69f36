// The control bot's commands, one entry each: who may give it, how it is typed, and the `ratefile` command line it
// runs. The CLI's own code does the work and writes the reply, so a command changes exactly what the CLI command
// changes and says it in the same words. A new command is one more entry here. Pure.
import type { ConfirmKind, ControlRole } from '../../model/control.js';

/** A command as typed: its name (lower case, without the slash and any @bot) and its words. */
export interface Typed {
  name: string;
  args: string[];
}

/** What a typed command comes to: `ratefile` arguments to run, one of the bot's own, or what is wrong with it. */
export type Plan =
  | { kind: 'cli'; cli: string[]; direction?: string; shown: string }
  | { kind: 'help' }
  | { kind: 'confirm'; id: string }
  | { kind: 'usage'; problem: string };

export interface ControlCommand {
  name: string;
  role: ControlRole;
  /** The arguments as /help shows them. */
  usage: string;
  summary: string;
  plan(args: readonly string[]): Plan;
  /** Which confirmation it is (confirm.commands says whether it waits for a second operator). */
  confirmAs?(plan: Plan & { kind: 'cli' }, facts: { hardJump: boolean }): ConfirmKind | undefined;
}

const code = /^[A-Z][A-Z0-9]{1,15}$/;
const usage = (problem: string): Plan => ({ kind: 'usage', problem });

/** FROM TO in capitals (typed on a phone, `btc sberrub` is meant the same), or undefined. */
function directionOf(args: readonly string[]): { from: string; to: string } | undefined {
  const [from, to] = args.slice(0, 2).map((word) => word.toUpperCase());
  return from !== undefined && to !== undefined && code.test(from) && code.test(to) ? { from, to } : undefined;
}

/** A command of FROM TO and nothing else, running `ratefile <name> -- FROM TO`. */
function onDirection(name: string): (args: readonly string[]) => Plan {
  return (args) => {
    const direction = directionOf(args);
    if (!direction || args.length !== 2) return usage(`expected /${name} FROM TO, like /${name} BTC SBERRUB`);
    const { from, to } = direction;
    return { kind: 'cli', cli: [name, '--', from, to], direction: `${from}>${to}`, shown: `/${name} ${from} ${to}` };
  };
}

const untilWords: Record<string, RegExp> = {
  for: /^\d+\s?[mhd]$/,
  until: /^\d{4}-\d{2}-\d{2}T[\d:.]+(Z|[+-]\d{2}:?\d{2})$/,
};

/** `/pause FROM TO [reason] [for 2h | until 2026-11-22T09:00:00+03:00]`: `ratefile pause` checks the time and reason. */
function pausePlan(args: readonly string[]): Plan {
  const direction = directionOf(args);
  if (!direction)
    return usage('expected /pause FROM TO [reason] [for 2h], like /pause BTC SBERRUB bank holiday for 2h');
  const tail = args.slice(2);
  const word = tail.at(-2)?.toLowerCase();
  const when = word !== undefined && untilWords[word]?.test(tail.at(-1) ?? '') ? tail.at(-1) : undefined;
  const reason = (when === undefined ? tail : tail.slice(0, -2)).join(' ');
  const { from, to } = direction;
  return {
    kind: 'cli',
    cli: [
      'pause',
      ...(reason === '' ? [] : [`--reason=${reason}`]),
      ...(when === undefined ? [] : [`--until=${when}`]),
      '--',
      from,
      to,
    ],
    direction: `${from}>${to}`,
    shown: `/pause ${from} ${to}${reason === '' ? '' : ` ${reason}`}${when === undefined ? '' : ` ${word} ${when}`}`,
  };
}

/** An ISO time as `ratefile at` reads it (an offset optional: the machine's zone), or `now`. */
const momentText = /^(now|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)$/i;

/** `/at TIME FROM TO`: what each export served for the direction then, as `ratefile at TIME FROM TO` says it. */
function atPlan(args: readonly string[]): Plan {
  const direction = directionOf(args.slice(1));
  const moment = args[0];
  if (args.length !== 3 || !direction || moment === undefined || !momentText.test(moment))
    return usage('expected /at TIME FROM TO, like /at 2026-11-21T12:00:00Z BTC SBERRUB (or /at now BTC SBERRUB)');
  const { from, to } = direction;
  const time = moment.toLowerCase() === 'now' ? 'now' : moment.toUpperCase();
  return {
    kind: 'cli',
    cli: ['at', '--', time, from, to],
    direction: `${from}>${to}`,
    shown: `/at ${time} ${from} ${to}`,
  };
}

function maintenancePlan(args: readonly string[]): Plan {
  const [state, ...more] = args.map((word) => word.toLowerCase());
  if (more.length > 0 || (state !== undefined && state !== 'on' && state !== 'off'))
    return usage('expected /maintenance on, /maintenance off, or /maintenance alone to ask');
  return {
    kind: 'cli',
    cli: ['maintenance', ...(state === undefined ? [] : [state])],
    shown: `/maintenance${state === undefined ? '' : ` ${state}`}`,
  };
}

/** Every command, in the order /help lists them. */
export const controlCommands: readonly ControlCommand[] = [
  {
    name: 'status',
    role: 'viewer',
    usage: '',
    summary: 'the last build, the sources, what is published or held back',
    plan: (args) =>
      args.length > 0 ? usage('expected /status alone') : { kind: 'cli', cli: ['status'], shown: '/status' },
  },
  {
    name: 'explain',
    role: 'viewer',
    usage: 'FROM TO',
    summary: "how a direction's rate comes about, or why it is held back",
    plan: onDirection('explain'),
  },
  {
    name: 'at',
    role: 'viewer',
    usage: 'TIME FROM TO',
    summary: 'what each export served for a direction at a past time, from the archive (whether its record verifies)',
    plan: atPlan,
  },
  {
    name: 'pause',
    role: 'operator',
    usage: 'FROM TO [reason] [for 2h]',
    summary: 'stop publishing a direction (until resumed, or for a while)',
    plan: pausePlan,
    confirmAs: () => 'pause',
  },
  {
    name: 'resume',
    role: 'operator',
    usage: 'FROM TO',
    summary: 'publish a paused direction again',
    plan: onDirection('resume'),
    confirmAs: () => 'resume',
  },
  {
    name: 'accept',
    role: 'operator',
    usage: 'FROM TO',
    summary: 'publish a direction the jump guard holds back, at its new rate',
    plan: onDirection('accept'),
    confirmAs: (_plan, facts) => (facts.hardJump ? 'accept-hard' : 'accept'),
  },
  {
    name: 'maintenance',
    role: 'operator',
    usage: 'on|off',
    summary: 'publish every export empty (on), or normally again (off)',
    plan: maintenancePlan,
    // Asking whether it is on changes nothing: only a switch waits.
    confirmAs: (plan) => (plan.cli.length > 1 ? 'maintenance' : undefined),
  },
  {
    name: 'confirm',
    role: 'operator',
    usage: 'ID',
    summary: "confirm another operator's command that waits for a second operator",
    plan: (args) =>
      args.length === 1 && /^[A-Za-z0-9]{1,16}$/.test(args[0]!)
        ? { kind: 'confirm', id: args[0]!.toUpperCase() }
        : usage('expected /confirm ID, with the id the waiting command shows'),
  },
  { name: 'help', role: 'viewer', usage: '', summary: 'these lines', plan: () => ({ kind: 'help' }) },
];

export const commandNamed = (name: string): ControlCommand | undefined =>
  controlCommands.find((command) => command.name === name);

/** Whether `role` may give a command for `needed`: an operator may do all a viewer may. */
export const mayGive = (role: ControlRole, needed: ControlRole): boolean => role === 'operator' || needed === 'viewer';

/**
 * A message's text as a command: undefined when it is no command, or one for another bot (`/status@other_bot` in a
 * group with several bots). `bot` is this bot's username, when known.
 */
export function typedCommand(text: string, bot: string | undefined): Typed | undefined {
  const words = text.trim().split(/\s+/);
  const match = /^\/([A-Za-z0-9_]{1,32})(?:@([A-Za-z0-9_]{1,64}))?$/.exec(words[0] ?? '');
  if (!match) return undefined;
  if (match[2] !== undefined && bot !== undefined && match[2].toLowerCase() !== bot.toLowerCase()) return undefined;
  return { name: match[1]!.toLowerCase(), args: words.slice(1) };
}

/** The lines of /help for a person of `role`: the commands they may give. */
export function helpText(role: ControlRole): string {
  const lines = controlCommands
    .filter((command) => mayGive(role, command.role))
    .map((command) => `/${command.name}${command.usage === '' ? '' : ` ${command.usage}`}: ${command.summary}`);
  return [
    ...lines,
    role === 'viewer' ? 'You are a viewer: /pause, /resume, /accept and /maintenance are for operators.' : '',
  ]
    .filter((line) => line !== '')
    .join('\n');
}
