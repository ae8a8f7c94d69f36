// Issue 48, item 2: who may do what. Against the Bot API stand-in, each unauthorised case is refused, with its
// reason said back and written to the control log, and does nothing (no pause file appears): someone not on the
// list in a control group, a listed person in a group that is not one or in a private chat when those are off, a
// viewer giving an operator's command, a forwarded, an edited or an anonymous admin's message, an old one, a replayed
// update_id, a button whose data was changed, and 100 commands in one second (at most `limit.commands` run).
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buttonData, buttonKey } from '../../../src/pure/control/buttons.js';
import { botApisPerTest, updateTemplates } from '../../support/bot-api.js';
import {
  type Bot,
  botsPerTest,
  controlBlock,
  GROUP,
  message,
  OTHER_GROUP,
  people,
  press,
  TOKEN,
} from '../../support/control.js';
import { projectsPerTest, sampleConfig, type Project } from '../../support/project.js';
import { fixedNow } from '../../support/run-cli.js';

const project = projectsPerTest();
const apis = botApisPerTest();
const bots = botsPerTest();

const paused = async (made: Project) => readdir(join(made.dir, '.ratefile', 'paused')).catch(() => [] as string[]);
/** The control log, once the bot has written what it handled. */
const journal = async (made: Project, bot: Bot) => {
  await bot.control.idle();
  return (await readFile(join(made.dir, '.ratefile', 'control', 'log.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
};

async function setUp(more = '') {
  const api = await apis(TOKEN);
  const made = await project({ 'ratefile.config.yaml': `${sampleConfig}${controlBlock(api.url, more)}` });
  const bot = await bots(made);
  return { api, made, bot };
}

describe('refused, with the reason, and nothing done', () => {
  it.each<[string, () => Record<string, unknown>, RegExp]>([
    [
      'someone not on the list, in a control group',
      () => message('/pause BTC SBERRUB', fixedNow(), { from: people.stranger }),
      /^refused: user 999999999 is not on control\.telegram\.people$/,
    ],
    [
      'a listed operator in a group that is no control chat',
      () => message('/pause BTC SBERRUB', fixedNow(), { chat: OTHER_GROUP }),
      /^refused: chat -1009876543210 is not a control chat \(control\.telegram\.chats\)$/,
    ],
    [
      "a listed operator in someone else's private chat",
      () => message('/pause BTC SBERRUB', fixedNow(), { chat: people.boris }),
      /^refused: chat 222222222 is not the private chat of user 111111111$/,
    ],
    [
      'a viewer giving an operator command',
      () => message('/pause BTC SBERRUB', fixedNow(), { from: people.vera }),
      /^refused: \/pause is for operators; vera \(333333333\) is a viewer$/,
    ],
    [
      'a forwarded message (Bot API 7 forward_origin)',
      () => ({
        message: { ...(updateTemplates.forwardedMessage!.message as object), date: fixedNow().getTime() / 1000 },
      }),
      /^refused: a forwarded command is never run: send it yourself$/,
    ],
    [
      'a forwarded message (forward_date, before Bot API 7)',
      () => message('/pause BTC SBERRUB', fixedNow(), { extra: { forward_date: 1795262000 } }),
      /^refused: a forwarded command is never run/,
    ],
    [
      'an edited message',
      () => ({
        edited_message: {
          ...(updateTemplates.editedMessage!.edited_message as object),
          text: '/pause BTC SBERRUB',
          date: fixedNow().getTime() / 1000,
        },
      }),
      /^refused: an edited message is never run: send the command again as a new message$/,
    ],
    [
      "an anonymous admin's message (sent on behalf of the group)",
      () => ({
        message: {
          ...(updateTemplates.anonymousAdmin!.message as object),
          text: '/pause BTC SBERRUB',
          date: fixedNow().getTime() / 1000,
        },
      }),
      /^refused: sent on behalf of a chat or through a bot/,
    ],
    [
      'a command sent 6 minutes ago (maxAge 5m: the bot was down)',
      () => message('/pause BTC SBERRUB', fixedNow(), { at: new Date(fixedNow().getTime() - 360_000) }),
      /^refused: sent at 2026-11-21T11:54:30\.000Z, longer ago than control\.telegram\.maxAge \(5 min\): send it again$/,
    ],
  ])('%s', async (_case, update, reason) => {
    const { api, made, bot } = await setUp();
    api.push(update());
    await api.idle();
    expect(api.texts()).toHaveLength(1);
    expect(api.texts()[0]).toMatch(reason);
    expect(await paused(made)).toEqual([]);
    expect(await journal(made, bot)).toEqual([
      expect.objectContaining({
        outcome: 'refused',
        reason: api.texts()[0]!.slice('refused: '.length),
        command: expect.stringMatching(/^\/pause BTC SBERRUB$/),
      }),
    ]);
  });

  it('private chats when control.telegram.private is false', async () => {
    const { api, made } = await setUp('    private: false\n');
    api.push(message('/pause BTC SBERRUB', fixedNow(), { chat: people.anna }));
    await api.idle();
    expect(api.texts()).toEqual([
      'refused: private chats are not taken (control.telegram.private is false): command in a control group',
    ]);
    expect(await paused(made)).toEqual([]);
  });

  it('a replayed update_id is not run again, even after a restart', async () => {
    const { api, made, bot } = await setUp();
    const id = api.push(message('/pause BTC SBERRUB first', fixedNow()));
    await api.idle();
    expect(await paused(made)).toEqual(['BTC-SBERRUB']);
    await readFile(join(made.dir, '.ratefile', 'paused', 'BTC-SBERRUB'), 'utf8');
    api.push(message('/resume BTC SBERRUB', fixedNow()));
    await api.idle();
    expect(await paused(made)).toEqual([]);
    // The API sends the first update again (its id confirmed long since): the pause is not made again.
    api.push({ ...message('/pause BTC SBERRUB first', fixedNow()), update_id: id }, { replay: true });
    await api.idle();
    expect(await paused(made)).toEqual([]);
    // And after a restart, from the ids saved in the state folder.
    await bot.control.stop();
    const again = await bots(made);
    api.push({ ...message('/pause BTC SBERRUB first', fixedNow()), update_id: id }, { replay: true });
    await api.idle();
    expect(await paused(made)).toEqual([]);
    const replays = (await journal(made, again)).filter((entry) => /a replay/.test(String(entry.reason)));
    expect(replays).toEqual([
      expect.objectContaining({
        update: id,
        outcome: 'refused',
        reason: `update ${id} was handled already (a replay): not run again`,
      }),
      expect.objectContaining({ update: id, outcome: 'refused' }),
    ]);
    // A replay is not answered: the chat saw the first pause and the resume only.
    expect(api.texts()).toHaveLength(2);
  });

  it('a button whose data was changed (another direction, another command, another key) is refused', async () => {
    const { api, made } = await setUp();
    const key = buttonKey(TOKEN);
    const good = buttonData({ name: 'pause', args: ['BTC', 'SBERRUB'] }, fixedNow(), key);
    const tampered = [
      good.replace('SBERRUB', 'USDTTRC20'),
      good.replace(/^p:/, 'a:'),
      buttonData({ name: 'pause', args: ['BTC', 'SBERRUB'] }, fixedNow(), buttonKey('another-token-123456')),
      'p:BTC:SBERRUB',
    ];
    for (const data of tampered) api.push(press(data, fixedNow()));
    await api.idle();
    expect(await paused(made)).toEqual([]);
    const answers = api.of('answerCallbackQuery').map((call) => call.text);
    expect(answers).toEqual(Array(4).fill('refused: this button does not verify (its data was changed): nothing done'));
    // The untouched button works: the check is the signature, not buttons as such.
    api.push(press(good, fixedNow()));
    await api.idle();
    expect(await paused(made)).toEqual(['BTC-SBERRUB']);
    expect(api.of('answerCallbackQuery').at(-1)?.text).toMatch(/^paused BTC → SBERRUB/);
    // A button of the right bot pressed in a chat that is no control chat, by someone not on the list: refused.
    api.push(press(good, fixedNow(), { chat: OTHER_GROUP }));
    api.push(press(good, fixedNow(), { from: people.stranger, chat: GROUP }));
    await api.idle();
    expect(
      api
        .of('answerCallbackQuery')
        .slice(-2)
        .map((call) => call.text),
    ).toEqual([
      'refused: chat -1009876543210 is not a control chat (control.telegram.chats)',
      'refused: user 999999999 is not on control.telegram.people',
    ]);
  });

  it('100 commands in one second do at most limit.commands things, and the refusal is said once', async () => {
    const { api, made, bot } = await setUp('    limit: { commands: 5, per: 1m }\n');
    for (let i = 0; i < 100; i += 1) api.push(message(`/pause BTC SBERRUB flood ${i}`, fixedNow()));
    // And a stranger floods too: one answer, and anna's own bucket is not theirs.
    for (let i = 0; i < 100; i += 1) api.push(message('/status', fixedNow(), { from: people.stranger }));
    await api.idle();
    const entries = await journal(made, bot);
    expect(entries.filter((entry) => entry.outcome === 'done')).toEqual(
      Array(5).fill(expect.objectContaining({ user: people.anna, name: 'anna', chat: GROUP, exit: 0 })),
    );
    expect(entries.filter((entry) => /too many commands/.test(String(entry.reason)))).toHaveLength(95 + 95);
    const pause = JSON.parse(await readFile(join(made.dir, '.ratefile', 'paused', 'BTC-SBERRUB'), 'utf8')) as {
      reason: string;
    };
    expect(pause.reason).toBe('flood 4');
    const texts = api.texts();
    expect(texts.filter((text) => text.startsWith('paused BTC → SBERRUB'))).toHaveLength(5);
    expect(texts.filter((text) => text.startsWith('refused: too many commands: at most 5 in 60 s'))).toHaveLength(2);
    expect(texts.filter((text) => text.includes('is not on control.telegram.people'))).toHaveLength(5);
    expect(texts).toHaveLength(5 + 5 + 2);
    // The control log is the owner's only.
    expect((await stat(join(made.dir, '.ratefile', 'control', 'log.jsonl'))).mode & 0o777).toBe(0o600);
  });
});
