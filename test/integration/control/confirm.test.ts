// Issue 48, item 3: two-person confirmation. By default switching maintenance and accepting a jump past the guards'
// hard bound (status.json's held-back entry carries `jump.hard: true`) wait for a second operator: shown to both
// (the chat asked in and the control groups, with a Confirm button), done only when another operator confirms
// within `confirm.within`; the one who asked cannot confirm, an expired one is not done, two waiting commands are
// kept apart, and the same command asked again is the same waiting one.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { botApisPerTest } from '../../support/bot-api.js';
import { botsPerTest, controlBlock, GROUP, message, people, press, testClock, TOKEN } from '../../support/control.js';
import { projectsPerTest, sampleConfig, type Project } from '../../support/project.js';
import { runRatefile } from '../../support/run-cli.js';

const project = projectsPerTest();
const apis = botApisPerTest();
const bots = botsPerTest();

const maintenanceOn = async (made: Project) =>
  readFile(join(made.dir, '.ratefile', 'maintenance'), 'utf8').then(
    () => true,
    () => false,
  );
const accepted = async (made: Project) => readdir(join(made.dir, '.ratefile', 'accept')).catch(() => [] as string[]);

/** The status after a build, with BTC → SBERRUB held for a jump, past the hard bound when `hard`. */
async function holdJump(made: Project, hard: boolean): Promise<void> {
  expect((await runRatefile(['build'], made.dir)).code).toBe(0);
  const file = join(made.dir, '.ratefile', 'status.json');
  const status = JSON.parse(await readFile(file, 'utf8')) as { heldBack: unknown[] };
  status.heldBack.push({
    direction: 'BTC>SBERRUB',
    kind: 'jump',
    reason: 'rate moved 60% from the last published 5500000',
    jump: {
      last: '5500000',
      rate: '8800810.33',
      sources: ['backoffice'],
      hard,
      command: 'ratefile accept BTC SBERRUB',
    },
  });
  await writeFile(file, JSON.stringify(status));
}

async function setUp(more = '') {
  const api = await apis(TOKEN);
  const made = await project({ 'ratefile.config.yaml': `${sampleConfig}${controlBlock(api.url, more)}` });
  const clock = testClock();
  let id = 0;
  const bot = await bots(made, { now: clock.now, newId: () => `W${(id += 1)}` });
  const say = async (text: string, from: number, chat = GROUP) => {
    const sent = api.texts().length;
    api.push(message(text, clock.now(), { from, chat }));
    await api.idle();
    return api.texts().slice(sent);
  };
  return { api, made, clock, bot, say };
}

describe('two-person confirmation', () => {
  it('maintenance waits for a second operator; the one who asked cannot confirm it; the second can', async () => {
    const { api, made, say } = await setUp();
    expect(await say('/maintenance on', people.anna)).toEqual([
      '/maintenance on, asked by anna (111111111), waits for a second operator: another operator confirms it with /confirm W1 or the button within 10 min (until 2026-11-21T12:10:30.000Z); nothing is done until then.',
    ]);
    expect(await maintenanceOn(made)).toBe(false);
    const notice = api.of('sendMessage').at(-1)!;
    expect(notice.reply_markup).toEqual({
      inline_keyboard: [
        [{ text: 'Confirm /maintenance on', callback_data: expect.stringMatching(/^c:W1:[0-9a-z]+:[\w-]{16}$/) }],
      ],
    });
    // The same person again, by command and by the button: refused; asking again is the same waiting command.
    expect(await say('/confirm W1', people.anna)).toEqual([
      'refused: /maintenance on (W1) was asked by you: another operator must confirm it',
    ]);
    const data = (notice.reply_markup as { inline_keyboard: { callback_data: string }[][] }).inline_keyboard[0]![0]!
      .callback_data;
    api.push(press(data, new Date('2026-11-21T12:01:00Z'), { from: people.anna }));
    await api.idle();
    expect(api.of('answerCallbackQuery').at(-1)?.text).toBe(
      'refused: /maintenance on (W1) was asked by you: another operator must confirm it',
    );
    expect(await say('/maintenance ON', people.anna)).toEqual([
      expect.stringMatching(/^\/maintenance on already waits for a second operator as W1 \(asked by anna/),
    ]);
    // A viewer cannot confirm.
    expect(await say('/confirm W1', people.vera)).toEqual([
      'refused: /confirm is for operators; vera (333333333) is a viewer',
    ]);
    expect(await maintenanceOn(made)).toBe(false);
    // The second operator, by the button: done, said in the chat, the button taken off the notice.
    const sent = api.texts().length;
    api.push(press(data, new Date('2026-11-21T12:01:00Z'), { from: people.boris }));
    await api.idle();
    expect(await maintenanceOn(made)).toBe(true);
    expect(api.texts().slice(sent)).toEqual([
      '/maintenance on (W1), asked by anna (111111111), confirmed by boris (222222222):\nmaintenance is on; it applies from the next build',
    ]);
    expect(api.of('editMessageReplyMarkup')).toEqual([
      { chat_id: GROUP, message_id: expect.any(Number), reply_markup: { inline_keyboard: [] } },
    ]);
    // Done once: confirming again finds nothing waiting.
    expect(await say('/confirm W1', people.boris)).toEqual([
      'refused: no command waits under W1 (done, expired or never asked)',
    ]);
  });

  it('expires: not confirmed within confirm.within, nothing is done and both are told', async () => {
    const { made, clock, say } = await setUp('    confirm: { within: 2m }\n');
    await say('/maintenance on', people.anna);
    clock.advance(121_000);
    expect(await say('/confirm W1', people.boris)).toEqual([
      '/maintenance on (W1), asked by anna (111111111), expired: no second operator confirmed it within 2 min. Nothing was done.',
      'refused: /maintenance on (W1) expired: it was not confirmed in time; ask again',
    ]);
    expect(await maintenanceOn(made)).toBe(false);
    // Asked again, it is a new waiting command, and it can be confirmed.
    await say('/maintenance on', people.anna);
    await say('/confirm W2', people.boris);
    expect(await maintenanceOn(made)).toBe(true);
  });

  it('an expiry is said where the command was shown at the next poll, without anyone confirming', async () => {
    const { api, clock, bot, say } = await setUp('    confirm: { within: 2m }\n');
    await say('/maintenance on', people.anna);
    clock.advance(121_000);
    await say('/status', people.vera);
    await bot.control.idle();
    expect(
      api.texts().some((text) => /^\/maintenance on \(W1\), asked by anna \(111111111\), expired/.test(text)),
    ).toBe(true);
    expect(api.of('editMessageReplyMarkup')).toHaveLength(1);
  });

  it('two waiting commands are kept apart: each confirmation runs the one it names', async () => {
    const { made, say } = await setUp();
    await holdJump(made, true);
    await say('/maintenance on', people.anna);
    expect(await say('/accept BTC SBERRUB', people.boris)).toEqual([
      expect.stringMatching(
        /^\/accept BTC SBERRUB, asked by boris \(222222222\), waits for a second operator: .*\/confirm W2/,
      ),
    ]);
    // anna confirms boris's accept: the accept is done, the maintenance still waits.
    expect(await say('/confirm W2', people.anna)).toEqual([
      expect.stringMatching(
        /^\/accept BTC SBERRUB \(W2\), asked by boris \(222222222\), confirmed by anna \(111111111\):\naccepted BTC → SBERRUB/,
      ),
    ]);
    expect(await accepted(made)).toEqual(['BTC-SBERRUB']);
    expect(await maintenanceOn(made)).toBe(false);
    // boris confirms anna's maintenance.
    await say('/confirm W1', people.boris);
    expect(await maintenanceOn(made)).toBe(true);
  });

  it('an accept waits only past the hard bound; within it, it is done at once', async () => {
    const { made, say } = await setUp();
    await holdJump(made, false);
    expect(await say('/accept BTC SBERRUB', people.anna)).toEqual([
      'accepted BTC → SBERRUB: the next build publishes its new rate and makes it the reference',
    ]);
    expect(await accepted(made)).toEqual(['BTC-SBERRUB']);
  });

  it('what waits is configurable: confirm.commands [pause]; maintenance is done at once then', async () => {
    const { made, say } = await setUp('    confirm: { commands: [pause] }\n');
    expect(await say('/pause BTC SBERRUB', people.anna)).toEqual([
      expect.stringMatching(/waits for a second operator/),
    ]);
    expect(await say('/maintenance on', people.anna)).toEqual(['maintenance is on; it applies from the next build']);
    expect(await maintenanceOn(made)).toBe(true);
  });

  it('a config with confirmation but one operator is refused, naming the field', async () => {
    const made = await project({
      'ratefile.config.yaml': `${sampleConfig}control:\n  telegram:\n    people:\n      - { id: 1, role: operator }\n      - { id: 1, role: viewer }\n`,
    });
    const outcome = await runRatefile(['validate'], made.dir);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toMatch(/control\.telegram\.people\[1\]\.id: expected each id once, got 1 again/);
    expect(outcome.stderr).toMatch(
      /control\.telegram\.confirm\.commands: expected at least two operators in people to confirm accept-hard, maintenance, got 1/,
    );
  });
});
