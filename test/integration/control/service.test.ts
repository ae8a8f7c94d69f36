// Issue 48, items 1 and 4 in the running service: `start` with `control:` answers /status once its first build is
// done and stops polling when it stops; under `ha:` a standby never calls the Bot API (so it answers nothing and
// leaves every update to the leader), and an instance that loses the lead stops answering at once and picks up
// again when it leads. Alerts to the control chat carry the buttons of their action, which act when pressed.
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { controlRunner } from '../../../src/commands/control-runner.js';
import { createLogger } from '../../../src/base/log.js';
import { loadConfig } from '../../../src/io/config/load.js';
import { startService, type Service } from '../../../src/service/start/service.js';
import { botApisPerTest } from '../../support/bot-api.js';
import { botsPerTest, controlBlock, env, GROUP, message, people, press, TOKEN } from '../../support/control.js';
import { pollUntil } from '../../support/http.js';
import { freePort } from '../../support/ports.js';
import { type Project, projectsPerTest, sampleConfig, sampleQuotes } from '../../support/project.js';
import { offlineFetch } from '../../support/run-cli.js';

const project = projectsPerTest();
const apis = botApisPerTest();
const bots = botsPerTest();
const services: Service[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((service) => service.stop()));
});

/** `start` in-process on the project, with the CLI runner `ratefile start` gives the control bot. */
async function start(made: Project, extraEnv: Record<string, string> = {}) {
  let log = '';
  const now = () => new Date();
  const allEnv = { ...env, ...extraEnv };
  const service = await startService({
    config: await loadConfig(made.configPath),
    loadConfig: () => loadConfig(made.configPath),
    outDir: join(made.dir, 'public'),
    port: 0,
    host: '127.0.0.1',
    log: createLogger({ write: (text: string) => ((log += text), true) }),
    watchFiles: false,
    deps: { now, env: allEnv, fetch: globalThis.fetch },
    commands: controlRunner(
      {
        stdout: { write: () => true },
        stderr: { write: () => true },
        env: allEnv,
        cwd: made.dir,
        now,
        fetch: offlineFetch,
        waitForStop: () => Promise.reject(new Error('not here')),
      },
      made.configPath,
    ),
  });
  services.push(service);
  return { service, log: () => log };
}

describe('the control bot in `ratefile start`', () => {
  it('answers /status in the words of `ratefile status`, and stops polling when the service stops', async () => {
    const api = await apis(TOKEN);
    const made = await project({ 'ratefile.config.yaml': `${sampleConfig}${controlBlock(api.url)}` });
    const { service } = await start(made);
    api.push(message('/status', new Date()));
    await api.idle();
    expect(api.texts()).toEqual([
      expect.stringMatching(/^ok\nlast build: .*\n[^]*published: 4 directions\nheld back: 0\npriced by one source: /),
    ]);
    const polls = api.of('getUpdates').length;
    await service.stop();
    services.splice(0);
    api.push(message('/status', new Date()));
    expect(api.of('getUpdates')).toHaveLength(polls);
    expect(api.texts()).toHaveLength(1);
  });

  it('a standby (ha: with its lock unreachable) never calls the Bot API: the update waits for the leader', async () => {
    const api = await apis(TOKEN);
    const closed = await freePort();
    const made = await project({
      'ratefile.config.yaml': `${sampleConfig}${controlBlock(api.url)}ha: { lock: { env: RATEFILE_LOCK_URL }, instance: rates-2 }\n`,
    });
    const { service, log } = await start(made, { RATEFILE_LOCK_URL: `postgres://r:pw@127.0.0.1:${closed}/lock` });
    expect(service.status()?.ha?.role).toBe('standby');
    api.push(message('/pause BTC SBERRUB', new Date()));
    await pollUntil(
      async () => (/control: standby: the leader answers commands/.test(log()) ? true : undefined),
      10_000,
    );
    await service.rebuild();
    await service.rebuild();
    expect(api.calls).toEqual([]);
    expect(await readdir(join(made.dir, '.ratefile', 'paused')).catch(() => [])).toEqual([]);
  });

  it('an instance that loses the lead stops answering at once and answers again when it leads', async () => {
    const api = await apis(TOKEN);
    const made = await project({ 'ratefile.config.yaml': `${sampleConfig}${controlBlock(api.url)}` });
    let role: 'leader' | 'standby' = 'leader';
    const bot = await bots(made, { role: () => role });
    api.push(message('/status', new Date()));
    await api.idle();
    expect(api.texts()).toHaveLength(1);
    // The lead is lost while the bot waits in a long poll: the update it is handed then is not acted on.
    role = 'standby';
    const id = api.push(message('/pause BTC SBERRUB', new Date()));
    await api.delivered(id);
    await pollUntil(async () => (/control: standby/.test(bot.log()) ? true : undefined), 10_000);
    const calls = api.calls.length;
    expect(api.texts()).toHaveLength(1);
    expect(await readdir(join(made.dir, '.ratefile', 'paused')).catch(() => [])).toEqual([]);
    // Leading again, it asks for the updates left unconfirmed and handles them.
    role = 'leader';
    await api.idle();
    expect(api.calls.length).toBeGreaterThan(calls);
    expect(await readdir(join(made.dir, '.ratefile', 'paused'))).toEqual(['BTC-SBERRUB']);
    expect(api.texts()[1]).toMatch(/^paused BTC → SBERRUB/);
  });

  it('an alert to the control chat carries Accept, Pause and Show, and Accept accepts', async () => {
    const api = await apis(TOKEN);
    const made = await project({
      'ratefile.config.yaml': `${sampleConfig}alerts: { telegram: { baseUrl: "${api.url}" } }\n${controlBlock(api.url)}`,
    });
    const { service } = await start(made, { TELEGRAM_CHAT_ID: String(GROUP) });
    // The market moves 20% (past maxJump, within hardJump): the jump guard holds the directions back, and the alert says so.
    const moved = sampleQuotes.quotes.map((q) =>
      q.pair === 'BTC/USDT' ? { ...q, bid: '116415', ask: '116415.01' } : q,
    );
    await writeFile(join(made.dir, 'quotes.json'), JSON.stringify({ quotes: moved }));
    await service.rebuild();
    await service.alertsIdle();
    const alert = api.of('sendMessage').find((sent) => String(sent.text).includes('jump held BTC → SBERRUB'));
    expect(alert?.chat_id).toBe(String(GROUP));
    const rows = (alert!.reply_markup as { inline_keyboard: { text: string; callback_data: string }[][] })
      .inline_keyboard;
    // With the hard bound's branch the held entry also says the rate it holds (`jump.rate`): "Accept 1 : … for …".
    const accept = rows.flat().find((button) => /^Accept (1 : [\d.]+ for )?BTC → SBERRUB$/.test(button.text))!;
    expect(accept).toBeDefined();
    expect(rows.flat().map((button) => button.text)).toContain('Pause BTC → SBERRUB');
    expect(rows.flat().map((button) => button.text)).toContain('Show BTC → SBERRUB');
    api.push(press(accept.callback_data, new Date(), { from: people.boris }));
    await api.idle();
    expect(await readdir(join(made.dir, '.ratefile', 'accept'))).toEqual(['BTC-SBERRUB']);
    expect(api.of('answerCallbackQuery').at(-1)?.text).toMatch(/^accepted BTC → SBERRUB/);
  });
});
