// Issue 48, item 5: `ratefile alert test` sends one test message to every alert channel of the config, with each
// channel's own code, and says which arrived: a webhook receiver and the Bot API stand-in take it, an SMTP server
// that is not there does not (exit 1); all arriving is exit 0; no alerts: block is a usage error.
import { afterEach, describe, expect, it } from 'vitest';
import { botApisPerTest } from '../../support/bot-api.js';
import { freePort } from '../../support/ports.js';
import { projectsPerTest, sampleConfig } from '../../support/project.js';
import { runRatefile } from '../../support/run-cli.js';
import { type Webhook, webhook } from '../../support/webhook.js';

const project = projectsPerTest();
const apis = botApisPerTest();
const hooks: Webhook[] = [];
afterEach(async () => {
  await Promise.all(hooks.splice(0).map((hook) => hook.close()));
});

const token = '7311234567:AAHk3x-Alert-Test-Token-0001';
const env = { TELEGRAM_BOT_TOKEN: token, TELEGRAM_CHAT_ID: '-1001234567890', HOOK_SECRET: 'hook-secret-1234' };

describe('ratefile alert test', () => {
  it('says which channel took the test message, and fails when one did not', async () => {
    const hook = await webhook();
    hooks.push(hook);
    const api = await apis(token);
    const closed = await freePort();
    const alerts = `alerts:
  webhook: { url: "${hook.url}", secretEnv: HOOK_SECRET }
  telegram: { baseUrl: "${api.url}" }
  email: { host: 127.0.0.1, port: ${closed}, from: ratefile@exchanger.example, to: [ops@exchanger.example] }
`;
    const made = await project({ 'ratefile.config.yaml': `${sampleConfig}${alerts}` });
    const outcome = await runRatefile(['alert', 'test'], made.dir, { env, fetch: globalThis.fetch });
    expect(outcome.code).toBe(1);
    const lines = outcome.stdout.trim().split('\n');
    expect(lines.slice(0, 2)).toEqual(['webhook: arrived', 'telegram: arrived']);
    expect(lines[2]).toMatch(/^email: FAILED: .*ECONNREFUSED/);
    expect(lines[3]).toMatch(/^1 of 3 channel\(s\) failed; test alert [0-9a-f-]{36}$/);
    const id = lines[3]!.split(' ').at(-1)!;
    // Each channel got the message in its own form, under the one id.
    expect(JSON.parse(hook.bodies[0]!)).toMatchObject({ type: 'ratefile.alert', id, level: 'ok', events: [] });
    expect(api.of('sendMessage')).toEqual([
      {
        chat_id: env.TELEGRAM_CHAT_ID,
        text: expect.stringMatching(new RegExp(`^TEST from ratefile on .*Nothing is wrong\\.\\n\\nalert ${id}$`)),
      },
    ]);
    expect(outcome.stdout).not.toContain(token);
  });

  it('exit 0 when every channel took it; a refused token is said without the token', async () => {
    const hook = await webhook();
    hooks.push(hook);
    const made = await project({
      'ratefile.config.yaml': `${sampleConfig}alerts: { webhook: { url: "${hook.url}" } }\n`,
    });
    const fine = await runRatefile(['alert', 'test'], made.dir, { env, fetch: globalThis.fetch });
    expect(fine.stdout).toMatch(/^webhook: arrived\nevery channel took test alert [0-9a-f-]{36}\n$/);
    expect(fine.code).toBe(0);
    const api = await apis('another-token-that-the-api-knows');
    const refused = await project({
      'ratefile.config.yaml': `${sampleConfig}alerts: { telegram: { baseUrl: "${api.url}" } }\n`,
    });
    const outcome = await runRatefile(['alert', 'test'], refused.dir, { env, fetch: globalThis.fetch });
    expect(outcome.stdout).toMatch(/^telegram: FAILED: HTTP 401: Unauthorized\n/);
    expect(outcome.code).toBe(1);
  });

  it('a config without alerts: is a usage error', async () => {
    const made = await project();
    const outcome = await runRatefile(['alert', 'test'], made.dir, { env });
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toBe('ratefile: ratefile.config.yaml has no alerts: block: no channel to test\n');
  });
});
