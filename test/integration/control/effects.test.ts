// Issue 48, item 4: a command from Telegram changes exactly what the CLI command changes. Two copies of one project
// (the same state folder, the same clock): each command is given to the control bot in one, through the Bot API
// stand-in, and run as `ratefile …` in the other; after each, the two state folders hold the same files, byte for
// byte (the bot's own control/ folder aside), and the bot's reply is what the CLI printed.
import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { botApisPerTest } from '../../support/bot-api.js';
import { botsPerTest, controlBlock, env, message, people, TOKEN } from '../../support/control.js';
import { projectsPerTest, sampleConfig, sampleQuotes, type Project } from '../../support/project.js';
import { fixedNow, runRatefile } from '../../support/run-cli.js';

const project = projectsPerTest();
const apis = botApisPerTest();
const bots = botsPerTest();

/** Every file of the state folder but the control bot's own, by path, with its bytes. */
async function stateFiles(made: Project): Promise<Record<string, string>> {
  const dir = join(made.dir, '.ratefile');
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files: Record<string, string> = {};
  for (const entry of entries.filter((e) => e.isFile())) {
    const path = join(entry.parentPath, entry.name).slice(dir.length + 1);
    if (!path.startsWith('control/')) files[path] = await readFile(join(dir, path), 'utf8');
  }
  return files;
}

/** A built project and its copy, both with BTC → USDTTRC20 held back by the jump guard in status.json. */
async function twins(config: string): Promise<{ bot: Project; cli: Project }> {
  // Quotes dated, not as old as their file: explain says their age, the same in both.
  const time = new Date(fixedNow().getTime() - 10_000).toISOString();
  const quotes = JSON.stringify({ quotes: sampleQuotes.quotes.map((quote) => ({ ...quote, time })) });
  const bot = await project({ 'ratefile.config.yaml': config, 'quotes.json': quotes });
  const cli = await project({ 'ratefile.config.yaml': config, 'quotes.json': quotes });
  expect((await runRatefile(['build'], bot.dir, { env })).code).toBe(0);
  const statusFile = join(bot.dir, '.ratefile', 'status.json');
  const status = JSON.parse(await readFile(statusFile, 'utf8')) as { heldBack: unknown[] };
  status.heldBack.push({ direction: 'BTC>USDTTRC20', kind: 'jump', reason: 'rate moved 12% from the last published' });
  await writeFile(statusFile, JSON.stringify(status, null, 2));
  await cp(join(bot.dir, '.ratefile'), join(cli.dir, '.ratefile'), { recursive: true });
  return { bot, cli };
}

describe('the same effects as the CLI', () => {
  it('pause, resume, accept, maintenance: the same files; status and explain: the same words', async () => {
    const api = await apis(TOKEN);
    const { bot, cli } = await twins(
      `${sampleConfig}${controlBlock(api.url, '    confirm: { commands: [] }\n    limit: { commands: 100 }\n')}`,
    );
    await bots(bot);
    const steps: [string, string[]][] = [
      [
        '/pause BTC SBERRUB bank holiday for 2h',
        ['pause', 'BTC', 'SBERRUB', '--reason', 'bank holiday', '--until', '2h'],
      ],
      ['/pause sberrub usdttrc20', ['pause', 'SBERRUB', 'USDTTRC20']],
      ['/resume SBERRUB USDTTRC20', ['resume', 'SBERRUB', 'USDTTRC20']],
      ['/resume SBERRUB USDTTRC20', ['resume', 'SBERRUB', 'USDTTRC20']],
      ['/accept BTC USDTTRC20', ['accept', 'BTC', 'USDTTRC20']],
      ['/accept BTC SBERRUB', ['accept', 'BTC', 'SBERRUB']],
      ['/maintenance on', ['maintenance', 'on']],
      ['/maintenance', ['maintenance']],
      ['/maintenance off', ['maintenance', 'off']],
      ['/status', ['status']],
      ['/explain BTC SBERRUB', ['explain', 'BTC', 'SBERRUB']],
      ['/explain BTC RUB', ['explain', 'BTC', 'RUB']],
      [`/at ${fixedNow().toISOString()} BTC SBERRUB`, ['at', fixedNow().toISOString(), 'BTC', 'SBERRUB']],
    ];
    const before = await stateFiles(bot);
    for (const [text, args] of steps) {
      const sent = api.texts().length;
      api.push(message(text, fixedNow()));
      await api.idle();
      const outcome = await runRatefile(args, cli.dir, { env });
      expect(await stateFiles(bot), text).toEqual(await stateFiles(cli));
      expect(api.texts().slice(sent), text).toEqual([`${outcome.stdout}${outcome.stderr}`.trimEnd()]);
      // /at reads the archive both folders hold: the item served then, not an error.
      if (args[0] === 'at') expect(outcome.stdout, outcome.stderr).toMatch(/BTC → SBERRUB|BTC>SBERRUB/);
    }
    // The steps did change the state folder: pauses, an accept request and the maintenance flag came and went.
    const after = await stateFiles(bot);
    expect(Object.keys(after).sort()).toEqual(
      [...Object.keys(before), 'accept/BTC-USDTTRC20', 'paused/BTC-SBERRUB'].sort(),
    );
    expect(JSON.parse(after['paused/BTC-SBERRUB']!)).toEqual({
      direction: 'BTC>SBERRUB',
      since: fixedNow().toISOString(),
      until: new Date(fixedNow().getTime() + 7_200_000).toISOString(),
      reason: 'bank holiday',
    });
  });

  it('answers in the chat it was asked in, replying to the command; /help lists what the role may do', async () => {
    const api = await apis(TOKEN);
    const made = await project({ 'ratefile.config.yaml': `${sampleConfig}${controlBlock(api.url)}` });
    await bots(made);
    api.push(message('/help', fixedNow(), { from: people.vera }));
    api.push(message('/help@ratefile_test_bot', fixedNow(), { from: people.anna, chat: people.anna }));
    api.push(message('/status@some_other_bot', fixedNow()));
    api.push(message('/frobnicate', fixedNow()));
    api.push(message('/pause BTC', fixedNow()));
    await api.idle();
    const [vera, anna, unknown, usage] = api.of('sendMessage');
    expect(vera?.text).toMatch(/^\/status: the last build/);
    expect(vera?.text).not.toMatch(/^\/pause/m);
    expect(vera?.text).toContain('You are a viewer');
    expect(vera?.text).toMatch(/^\/at TIME FROM TO: /m);
    expect(anna?.chat_id).toBe(people.anna);
    expect(anna?.text).toMatch(/^\/pause FROM TO \[reason\] \[for 2h\]: /m);
    // `/status@some_other_bot` is another bot's: not answered at all.
    expect(unknown?.text).toBe('refused: no command /frobnicate: /help lists them');
    expect(usage?.text).toMatch(/^refused: expected \/pause FROM TO \[reason\] \[for 2h\]/);
    expect(api.of('sendMessage')).toHaveLength(4);
    expect(vera?.reply_parameters).toMatchObject({ message_id: expect.any(Number) });
  });
});
