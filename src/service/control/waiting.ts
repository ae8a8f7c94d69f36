// Two-person confirmation in the chats (the rules are src/pure/control/confirm.ts's): a waiting command is shown
// to both operators, in the chat it was asked in and in every control group (with no group, in each operator's
// private chat), with a Confirm button; once it runs or expires, each of those messages loses its button and the
// outcome is said there. Waiting commands live in memory: a restart or a failover drops them (nothing was done).
import { age } from '../../base/words.js';
import type { ConfirmKind } from '../../model/control.js';
import { buttonData } from '../../pure/control/buttons.js';
import type { Plan } from '../../pure/control/commands.js';
import { ask, confirm, expire, type Waiting } from '../../pure/control/confirm.js';
import {
  answer,
  type Asker,
  askerEntry,
  type ControlBot,
  cut,
  dropButtons,
  record,
  reply,
  say,
  type Sent,
  who,
} from './context.js';

/** Where a waiting command is shown: the chat it was asked in, the control groups, or the operators' own chats. */
function noticeChats(bot: ControlBot, asked: number): number[] {
  const { chats, people } = bot.telegram;
  const operators = people.filter((person) => person.role === 'operator').map((person) => person.id);
  return [...new Set([asked, ...chats, ...(chats.length === 0 && bot.telegram.private ? operators : [])])];
}

const until = (waiting: Waiting) => new Date(waiting.until).toISOString();

export async function askSecond(
  bot: ControlBot,
  plan: Plan & { kind: 'cli' },
  kind: ConfirmKind,
  asker: Asker,
): Promise<void> {
  const within = bot.telegram.confirm.within;
  const wanted = {
    id: bot.newId(),
    kind,
    shown: plan.shown,
    cli: plan.cli,
    by: asker.person.id,
    byName: who(asker.person),
  };
  const asked = ask(bot.waiting, wanted, bot.now().getTime(), within);
  if ('already' in asked) {
    const { already } = asked;
    record(bot, {
      ...askerEntry(asker),
      outcome: 'refused',
      waiting: already.id,
      reason: `already waits as ${already.id}`,
    });
    return reply(
      bot,
      asker.origin,
      `${already.shown} already waits for a second operator as ${already.id} (asked by ${already.byName}, until ${until(already)}): /confirm ${already.id}`,
    );
  }
  bot.waiting = asked.waiting;
  const { made } = asked;
  const text = `${made.shown}, asked by ${made.byName}, waits for a second operator: another operator confirms it with /confirm ${made.id} or the button within ${age(within / 1000)} (until ${until(made)}); nothing is done until then.`;
  const buttons = [
    [
      {
        text: `Confirm ${made.shown}`,
        callback_data: buttonData({ name: 'confirm', args: [made.id] }, bot.now(), bot.key),
      },
    ],
  ];
  const sent = await Promise.all(
    noticeChats(bot, asker.origin.chat.id).map((chat) =>
      say(bot, chat, text, { buttons, replyTo: chat === asker.origin.chat.id ? asker.origin.messageId : undefined }),
    ),
  );
  bot.notices.set(
    made.id,
    sent.filter((message): message is Sent => message !== undefined),
  );
  if (asker.origin.callbackId !== undefined)
    await answer(bot, asker.origin.callbackId, `waits for a second operator as ${made.id}`);
  record(bot, {
    ...askerEntry(asker),
    outcome: 'waiting',
    waiting: made.id,
    reason: `needs a second operator (${kind})`,
  });
}

export async function confirmWaiting(bot: ControlBot, id: string, asker: Asker): Promise<void> {
  const result = confirm(bot.waiting, id, asker.person.id, bot.now().getTime());
  bot.waiting = result.waiting;
  if ('refused' in result) {
    if (result.expired) await sayExpired(bot, result.expired);
    record(bot, { ...askerEntry(asker), outcome: 'refused', waiting: id, reason: result.refused });
    return reply(bot, asker.origin, `refused: ${result.refused}`);
  }
  const { run } = result;
  const notices = bot.notices.get(run.id) ?? [];
  bot.notices.delete(run.id);
  const outcome = await bot.run(run.cli);
  const text = cut(
    `${run.shown} (${run.id}), asked by ${run.byName}, confirmed by ${who(asker.person)}:\n${outcome.text}`,
    `the rest: ratefile ${run.cli.filter((word) => word !== '--').join(' ')}`,
  );
  await dropButtons(bot, notices);
  const chats = [...new Set([...notices.map((message) => message.chat), asker.origin.chat.id])];
  await Promise.all(chats.map((chat) => say(bot, chat, text)));
  if (asker.origin.callbackId !== undefined) await answer(bot, asker.origin.callbackId, `confirmed ${run.shown}`);
  record(bot, {
    ...askerEntry(asker),
    outcome: outcome.failed ? 'failed' : 'confirmed',
    waiting: run.id,
    reason: `${run.shown} asked by ${run.byName}`,
    reply: outcome.text.trim().split('\n')[0] ?? '',
    exit: outcome.code,
  });
}

/** Waiting commands whose time ran out, said as such where they were shown. */
export async function expireWaiting(bot: ControlBot): Promise<void> {
  const { expired, waiting } = expire(bot.waiting, bot.now().getTime());
  bot.waiting = waiting;
  for (const gone of expired) await sayExpired(bot, gone);
}

async function sayExpired(bot: ControlBot, gone: Waiting): Promise<void> {
  const notices = bot.notices.get(gone.id) ?? [];
  bot.notices.delete(gone.id);
  await dropButtons(bot, notices);
  const text = `${gone.shown} (${gone.id}), asked by ${gone.byName}, expired: no second operator confirmed it within ${age(bot.telegram.confirm.within / 1000)}. Nothing was done.`;
  await Promise.all([...new Set(notices.map((message) => message.chat))].map((chat) => say(bot, chat, text)));
  const name = bot.telegram.people.find((person) => person.id === gone.by)?.name;
  record(bot, {
    user: gone.by,
    ...(name === undefined ? {} : { name }),
    command: gone.shown,
    outcome: 'expired',
    waiting: gone.id,
  });
}
