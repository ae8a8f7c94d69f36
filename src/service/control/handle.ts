// One update, start to end: authorised (src/pure/control/authorise.ts), counted against the rate limit, the command
// found and its role checked, then run through the CLI (or made to wait for a second operator, src/service/control/
// waiting.ts), answered where it came from and written to the control log, whatever the outcome.
import { age } from '../../base/words.js';
import { authorise } from '../../pure/control/authorise.js';
import { commandNamed, helpText, mayGive, type Plan, type Typed } from '../../pure/control/commands.js';
import type { TgUpdate } from '../../pure/control/update.js';
import { type Asker, askerEntry, type ControlBot, cut, record, reply, who } from './context.js';
import { askSecond, confirmWaiting } from './waiting.js';

const typedText = (command: Typed) => `/${[command.name, ...command.args].join(' ')}`.slice(0, 200);

export async function handleUpdate(bot: ControlBot, update: TgUpdate): Promise<void> {
  const { telegram } = bot;
  const now = bot.now();
  const decided = authorise(
    update,
    { people: telegram.people, chats: telegram.chats, private: telegram.private, maxAgeMs: telegram.maxAge },
    { now, bot: bot.username, key: bot.key },
  );
  if (decided.kind === 'ignore') return;
  const { origin } = decided;
  const person = telegram.people.find((p) => p.id === origin.user?.id);
  const base = {
    update: update.update_id,
    ...(origin.user ? { user: origin.user.id } : {}),
    ...(person?.name === undefined ? {} : { name: person.name }),
    ...(origin.chat ? { chat: origin.chat.id } : {}),
    ...(decided.kind === 'act' ? { command: typedText(decided.command) } : origin.said ? { command: origin.said } : {}),
  };
  // Counted before anything is done or said: a flood gets one answer and does at most `limit.commands` things.
  const bucket = person ? `person:${person.id}` : 'strangers';
  const taken = bot.limit.take(bucket, now.getTime());
  if (taken !== 'ok') {
    const reason = `too many commands: at most ${telegram.limit.commands} in ${age(telegram.limit.per / 1000)}; refused for the next ${age(bot.limit.waitMs(bucket) / 1000)}`;
    record(bot, { ...base, outcome: 'refused', reason });
    if (taken === 'over, say so') await reply(bot, origin, `refused: ${reason}`);
    return;
  }
  if (decided.kind === 'refuse') {
    record(bot, { ...base, outcome: 'refused', reason: decided.reason });
    await reply(bot, origin, `refused: ${decided.reason}`);
    return;
  }
  const asker = { person: decided.person, origin: decided.origin, update: update.update_id, typed: base.command! };
  await act(bot, decided.command, asker, base);
}

async function act(bot: ControlBot, command: Typed, asker: Asker, base: Record<string, unknown>): Promise<void> {
  const entry = commandNamed(command.name);
  const refuse = async (reason: string) => {
    record(bot, { ...base, outcome: 'refused', reason });
    await reply(bot, asker.origin, `refused: ${reason}`);
  };
  if (!entry) return refuse(`no command /${command.name}: /help lists them`);
  if (!mayGive(asker.person.role, entry.role))
    return refuse(`/${entry.name} is for operators; ${who(asker.person)} is a viewer`);
  const plan = entry.plan(command.args);
  if (plan.kind === 'usage') return refuse(plan.problem);
  if (plan.kind === 'help') {
    record(bot, { ...base, outcome: 'done', reply: '/help' });
    return reply(bot, asker.origin, helpText(asker.person.role));
  }
  if (plan.kind === 'confirm') return confirmWaiting(bot, plan.id, asker);
  const kind = entry.confirmAs?.(plan, { hardJump: await pastHardBound(bot, plan.direction) });
  if (kind !== undefined && bot.telegram.confirm.commands.includes(kind)) return askSecond(bot, plan, kind, asker);
  await runNow(bot, plan, asker);
}

/** Runs the command as the CLI does and answers with what the CLI printed. */
async function runNow(bot: ControlBot, plan: Plan & { kind: 'cli' }, asker: Asker): Promise<void> {
  const outcome = await bot.run(plan.cli);
  const text = cut(outcome.text, `the rest: ratefile ${plan.cli.filter((word) => word !== '--').join(' ')}`);
  record(bot, {
    ...askerEntry(asker),
    outcome: outcome.failed ? 'failed' : 'done',
    reply: text.split('\n')[0] ?? '',
    exit: outcome.code,
  });
  await reply(bot, asker.origin, text);
}

/**
 * Whether the direction is held back by a jump past the guards' hard bound: the status file's held-back entry
 * then carries `jump: { …, hard: true }` (kind `jump`). Read as the file says it; absent means not past it.
 */
async function pastHardBound(bot: ControlBot, direction: string | undefined): Promise<boolean> {
  if (direction === undefined) return false;
  const status = await bot.status().catch(() => undefined);
  const held = status?.heldBack.find((entry) => entry.direction === direction) as { jump?: unknown } | undefined;
  const jump = held?.jump;
  return typeof jump === 'object' && jump !== null && (jump as { hard?: unknown }).hard === true;
}
