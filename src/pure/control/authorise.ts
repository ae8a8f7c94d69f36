// Whether an update is a command to act on: from a person on the config's list (by Telegram user id: a chat alone
// never authorises), in a chat where commands are taken, typed by them now (not forwarded, not an edit, not sent on
// behalf of a chat or by a bot, not older than maxAge) or a button whose signed data verifies. Anything else is
// refused with the reason, or ignored when it is no command at all. Roles are checked once the command is known
// (src/service/control/handle.ts); replays and the rate limit are the service's (src/pure/control/replay.ts, limit.ts). Pure.
import type { ControlPerson } from '../../model/control.js';
import { age } from '../../base/words.js';
import { BUTTON_LIFE_MS, readButton } from './buttons.js';
import { typedCommand, type Typed } from './commands.js';
import { isForwarded, messageOf, type TgChat, type TgUpdate, type TgUser, userOf } from './update.js';

export interface ControlPolicy {
  people: readonly ControlPerson[];
  chats: readonly number[];
  private: boolean;
  maxAgeMs: number;
}

/** Where an update came from, so a refusal or an answer goes back there. */
export interface Origin {
  user?: TgUser;
  chat?: TgChat;
  messageId?: number;
  callbackId?: string;
  /** What it said, for the control log: the text (cut to 200 characters), or a button's data. */
  said?: string;
}

export type Authorised =
  | { kind: 'ignore' }
  | { kind: 'refuse'; reason: string; origin: Origin }
  | { kind: 'act'; person: ControlPerson; command: Typed; origin: Origin & { user: TgUser; chat: TgChat } };

export interface AuthoriseContext {
  now: Date;
  /** This bot's username (from getMe), so `/status@other_bot` is left to the other bot. */
  bot: string | undefined;
  key: Buffer;
}

const refuse = (reason: string, origin: Origin): Authorised => ({ kind: 'refuse', reason, origin });

/** Why commands are not taken in `chat` from `user`, or undefined: a listed group, or their own private chat when allowed. */
function chatRefusal(chat: TgChat, user: TgUser, policy: ControlPolicy): string | undefined {
  if (chat.type !== 'private')
    return policy.chats.includes(chat.id)
      ? undefined
      : `chat ${chat.id} is not a control chat (control.telegram.chats)`;
  if (!policy.private)
    return 'private chats are not taken (control.telegram.private is false): command in a control group';
  return chat.id === user.id ? undefined : `chat ${chat.id} is not the private chat of user ${user.id}`;
}

/** The person behind `user` in `chat`, or the reason the command is refused. */
function personFor(user: TgUser, chat: TgChat, policy: ControlPolicy): ControlPerson | string {
  if (user.is_bot === true) return 'sent by a bot: only people command';
  return (
    chatRefusal(chat, user, policy) ??
    policy.people.find((person) => person.id === user.id) ??
    `user ${user.id} is not on control.telegram.people`
  );
}

export function authorise(update: TgUpdate, policy: ControlPolicy, context: AuthoriseContext): Authorised {
  if (update.callback_query !== undefined) return authoriseButton(update.callback_query, policy, context);
  const edited = messageOf(update.edited_message);
  if (edited) {
    const command = typedCommand(edited.text ?? '', context.bot);
    if (!command) return { kind: 'ignore' };
    const origin = {
      chat: edited.chat,
      messageId: edited.message_id,
      said: saidOf(edited.text),
      ...userField(edited.from),
    };
    return refuse('an edited message is never run: send the command again as a new message', origin);
  }
  const message = messageOf(update.message);
  const command = message && typedCommand(typeof message.text === 'string' ? message.text : '', context.bot);
  if (!message || !command) return { kind: 'ignore' };
  const user = userOf(message.from);
  const origin = { chat: message.chat, messageId: message.message_id, said: saidOf(message.text), ...userField(user) };
  if (isForwarded(message)) return refuse('a forwarded command is never run: send it yourself', origin);
  if (message.sender_chat !== undefined || message.via_bot !== undefined || !user)
    return refuse(
      'sent on behalf of a chat or through a bot: only a person on the list commands, as themselves',
      origin,
    );
  const sentAgo = context.now.getTime() - message.date * 1000;
  if (sentAgo > policy.maxAgeMs)
    return refuse(
      `sent at ${new Date(message.date * 1000).toISOString()}, longer ago than control.telegram.maxAge (${age(policy.maxAgeMs / 1000)}): send it again`,
      origin,
    );
  const person = personFor(user, message.chat, policy);
  if (typeof person === 'string') return refuse(person, origin);
  return { kind: 'act', person, command, origin: { ...origin, user } };
}

const userField = (user: TgUser | undefined) => (user ? { user } : {});
const saidOf = (text: unknown) => String(text).slice(0, 200);

function authoriseButton(
  query: NonNullable<TgUpdate['callback_query']>,
  policy: ControlPolicy,
  context: AuthoriseContext,
): Authorised {
  const user = userOf(query.from);
  const message = messageOf(query.message);
  const origin: Origin = {
    ...(typeof query.id === 'string' ? { callbackId: query.id } : {}),
    ...userField(user),
    ...(message ? { chat: message.chat } : {}),
    said: `button ${String(query.data).slice(0, 64)}`,
  };
  if (origin.callbackId === undefined || !user) return { kind: 'ignore' };
  const button = typeof query.data === 'string' ? readButton(query.data, context.key) : undefined;
  if (!button) return refuse('this button does not verify (its data was changed): nothing done', origin);
  if (context.now.getTime() - button.at.getTime() > BUTTON_LIFE_MS)
    return refuse('this button is older than a day: type the command instead', origin);
  if (!message) return refuse('a button outside a chat is not taken', origin);
  const person = personFor(user, message.chat, policy);
  if (typeof person === 'string') return refuse(person, origin);
  return { kind: 'act', person, command: button.command, origin: { ...origin, user, chat: message.chat } };
}
