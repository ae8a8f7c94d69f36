// Authorising an update, without sockets: only a person on the list (by user id), in a control chat, typing the
// command now and as themselves, or pressing a button whose signed data verifies; every other case refused with
// its reason, and what is no command at all ignored.
import { describe, expect, it } from 'vitest';
import { type AuthoriseContext, authorise, type ControlPolicy } from '../../../../src/pure/control/authorise.js';
import { buttonData, buttonKey } from '../../../../src/pure/control/buttons.js';
import type { TgUpdate } from '../../../../src/pure/control/update.js';

const now = new Date('2026-11-21T12:00:30Z');
const key = buttonKey('7311234567:AAH-test');
const policy: ControlPolicy = {
  people: [
    { id: 11, name: 'anna', role: 'operator' },
    { id: 33, role: 'viewer' },
  ],
  chats: [-100],
  private: true,
  maxAgeMs: 300_000,
};
const context: AuthoriseContext = { now, bot: 'ratefile_bot', key };
const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

function update(message: Record<string, unknown>, field = 'message'): TgUpdate {
  return {
    update_id: 1,
    [field]: {
      message_id: 5,
      date: seconds(now),
      chat: { id: -100, type: 'supergroup' },
      from: { id: 11, is_bot: false },
      text: '/pause BTC SBERRUB',
      ...message,
    },
  } as TgUpdate;
}

function button(data: string, from = 11, chat = -100): TgUpdate {
  return {
    update_id: 2,
    callback_query: {
      id: 'q1',
      from: { id: from, is_bot: false },
      message: { message_id: 9, date: seconds(now), chat: { id: chat, type: chat < 0 ? 'supergroup' : 'private' } },
      data,
    },
  };
}

const reasonOf = (u: TgUpdate) => {
  const decided = authorise(u, policy, context);
  return decided.kind === 'refuse' ? decided.reason : decided.kind;
};

describe('authorise', () => {
  it('acts on a listed person typing in a control group or their own private chat', () => {
    expect(authorise(update({}), policy, context)).toEqual({
      kind: 'act',
      person: { id: 11, name: 'anna', role: 'operator' },
      command: { name: 'pause', args: ['BTC', 'SBERRUB'] },
      origin: {
        chat: { id: -100, type: 'supergroup' },
        messageId: 5,
        said: '/pause BTC SBERRUB',
        user: { id: 11, is_bot: false },
      },
    });
    expect(reasonOf(update({ chat: { id: 11, type: 'private' } }))).toBe('act');
    // A viewer is authorised as a person; the role is checked once the command is known.
    expect(reasonOf(update({ from: { id: 33 } }))).toBe('act');
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['not on the list', { from: { id: 99 } }, 'user 99 is not on control.telegram.people'],
    [
      'a chat alone never authorises',
      { chat: { id: -100, type: 'supergroup' }, from: { id: 99 } },
      'user 99 is not on control.telegram.people',
    ],
    [
      'another group',
      { chat: { id: -200, type: 'group' } },
      'chat -200 is not a control chat (control.telegram.chats)',
    ],
    [
      "someone else's private chat",
      { chat: { id: 33, type: 'private' } },
      'chat 33 is not the private chat of user 11',
    ],
    ['a bot', { from: { id: 11, is_bot: true } }, 'sent by a bot: only people command'],
    [
      'forwarded (forward_origin)',
      { forward_origin: { type: 'hidden_user', date: 1, sender_user_name: 'x' } },
      'a forwarded command is never run: send it yourself',
    ],
    ['forwarded (forward_from)', { forward_from: { id: 11 } }, 'a forwarded command is never run: send it yourself'],
    [
      'forwarded automatically from a channel',
      { is_automatic_forward: true },
      'a forwarded command is never run: send it yourself',
    ],
    [
      'on behalf of a chat',
      { sender_chat: { id: -100, type: 'supergroup' } },
      'sent on behalf of a chat or through a bot: only a person on the list commands, as themselves',
    ],
    [
      'through an inline bot',
      { via_bot: { id: 7, is_bot: true } },
      'sent on behalf of a chat or through a bot: only a person on the list commands, as themselves',
    ],
    [
      'without a sender',
      { from: undefined },
      'sent on behalf of a chat or through a bot: only a person on the list commands, as themselves',
    ],
    [
      'too old',
      { date: seconds(now) - 301 },
      'sent at 2026-11-21T11:55:29.000Z, longer ago than control.telegram.maxAge (5 min): send it again',
    ],
  ])('refuses a message %s', (_case, fields, reason) => {
    expect(reasonOf(update(fields))).toBe(reason);
  });

  it('refuses an edited command, ignores what is no command or is for another bot', () => {
    expect(reasonOf(update({ edit_date: seconds(now) }, 'edited_message'))).toBe(
      'an edited message is never run: send the command again as a new message',
    );
    expect(reasonOf(update({ text: 'fixed a typo' }, 'edited_message'))).toBe('ignore');
    expect(reasonOf(update({ text: 'good morning' }))).toBe('ignore');
    expect(reasonOf(update({ text: '/status@other_bot' }))).toBe('ignore');
    expect(reasonOf(update({ text: undefined }))).toBe('ignore');
    expect(reasonOf(update({}, 'channel_post'))).toBe('ignore');
    expect(reasonOf({ update_id: 3 })).toBe('ignore');
  });

  it('acts on a button whose data verifies, pressed by a listed person in a control chat', () => {
    const data = buttonData({ name: 'accept', args: ['BTC', 'SBERRUB'] }, now, key);
    expect(authorise(button(data), policy, context)).toMatchObject({
      kind: 'act',
      command: { name: 'accept', args: ['BTC', 'SBERRUB'] },
      origin: { callbackId: 'q1', chat: { id: -100 } },
    });
    expect(reasonOf(button(data, 99))).toBe('user 99 is not on control.telegram.people');
    expect(reasonOf(button(data, 11, -200))).toBe('chat -200 is not a control chat (control.telegram.chats)');
    const old = buttonData({ name: 'accept', args: ['BTC', 'SBERRUB'] }, new Date(now.getTime() - 86_400_001), key);
    expect(reasonOf(button(old))).toBe('this button is older than a day: type the command instead');
  });

  it('refuses a button whose data was changed in any character', () => {
    const data = buttonData({ name: 'pause', args: ['BTC', 'SBERRUB'] }, now, key);
    for (let i = 0; i < data.length; i += 1) {
      const changed = `${data.slice(0, i)}${data[i] === 'Z' ? 'Y' : 'Z'}${data.slice(i + 1)}`;
      expect(reasonOf(button(changed)), changed).toBe(
        'this button does not verify (its data was changed): nothing done',
      );
    }
    expect(reasonOf(button(''))).toBe('this button does not verify (its data was changed): nothing done');
  });
});
