// Credentials never leave the process: a loopback server that echoes each request (URL raw and decoded, headers,
// their base64) into its answers stands in for three sources — an `http` reserve source with an auth header from
// the environment, CoinGecko with RATEFILE_COINGECKO_KEY, a `json` source with a key in its URL's query — and every
// surface a real service and the CLI offer is searched for each secret whole, URL-encoded, in base64 and by its
// first 24 characters: /, /dashboard.json, /healthz, /metrics, `status`, `explain`, `build`, the logs as text and
// JSON, the state folder's files and the alert bodies a webhook receiver gets. The control bot's token (`control:`,
// in a variable whose name does not say it is one) is in none of them either, nor in the bot's replies, though the
// Bot API stand-in quotes it back in its errors. And no value from outside drives the terminal: a feed's exchanger
// name in `explain`, a hand-edited pause file in `status`.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/io/config/load.js';
import { createLogger, type Logger } from '../../../src/base/log.js';
import { startService, type Service } from '../../../src/service/start/service.js';
import { base, dump } from '../../support/bestchange.js';
import { projectsPerTest, sampleConfig } from '../../support/project.js';
import { pollUntil } from '../../support/http.js';
import { spawnRatefile, stopAll, waitForServing } from '../../support/process.js';
import { runRatefile } from '../../support/run-cli.js';
import { controlRunner } from '../../../src/commands/control-runner.js';
import { botApi, type BotApiStandIn } from '../../support/bot-api.js';
import { controlBlock, message, people } from '../../support/control.js';
import { webhook as startWebhook, type Webhook } from '../../support/webhook.js';

const project = projectsPerTest();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await stopAll();
  await Promise.all(closers.splice(0).map((close) => close()));
});

const reserveToken = 'eng_k7Q2x9Lm4Pz8k7Q2x9Lm4Pz8Wq3Rt6Yu';
const reserveHeader = `Bearer ${reserveToken}`;
const coingeckoKey = 'CG-Zr8Pq2Lx7Vn4Mk9Tb3Wd6Hs1Fj5Ga0';
// A `/` and a `+`: the URL carries it percent-encoded, the server also echoes it decoded.
const jsonKey = 'jk/4fT9+qL2mX8vR3nP7wK1zH6dB5sY0';
const hookSecret = 'whsec_Hq7Lm2Zx9Pv4Nb8Tc3Rk6Wd1';
const controlToken = '7311234567:AAHk3x-Leaky-Control-Token-9Zq';

/** fetch for loopback only: nothing in these tests may reach the internet. */
const loopbackFetch: typeof globalThis.fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  return url.hostname === '127.0.0.1'
    ? globalThis.fetch(input, init)
    : Promise.reject(new Error(`network disabled in tests: ${url.origin}`));
};

const secrets = { reserveHeader, reserveToken, coingeckoKey, jsonKey, hookSecret, controlToken };

/** Every form of a secret that must not appear: whole, URL-encoded (both ways), base64 (both alphabets), its first 24 characters. */
function forms(secret: string): string[] {
  const base64 = Buffer.from(secret).toString('base64');
  return [
    ...new Set([
      secret,
      encodeURIComponent(secret),
      new URLSearchParams({ s: secret }).toString().slice(2),
      base64,
      base64.replace(/=+$/, ''),
      Buffer.from(secret).toString('base64url'),
      secret.slice(0, 24),
    ]),
  ];
}

/** Each (secret, form) found in `text`. */
function leaks(surface: string, text: string): string[] {
  const found: string[] = [];
  for (const [name, secret] of Object.entries(secrets)) {
    for (const form of forms(secret))
      if (text.includes(form)) found.push(`${surface}: ${name} as ${JSON.stringify(form)}`);
  }
  return found;
}

/** A third party that quotes the request back: the URL raw and decoded, every header, and each header's value in base64. */
async function echoServer(): Promise<string> {
  const server: Server = createServer((request: IncomingMessage, response) => {
    const url = request.url ?? '';
    const headers = Object.entries(request.headers).map(
      ([name, value]) => `${name}: ${String(value)} (${Buffer.from(String(value)).toString('base64')})`,
    );
    const echo = `${request.method} ${url} [${decodeURIComponent(url)}] ${headers.join('; ')}`;
    response.setHeader('Content-Type', 'application/json');
    if (url.startsWith('/office')) {
      // 200, but the reserves are not where the config says: the message quotes what is there, the auth header.
      response.end(JSON.stringify({ echo: String(request.headers.authorization), more: echo }));
    } else if (url.startsWith('/vault')) {
      response.writeHead(401);
      response.end(JSON.stringify({ message: `unauthorized: ${echo}` }));
    } else if (url.startsWith('/api/v3/simple/price')) {
      response.writeHead(400);
      response.end(
        JSON.stringify({
          status: {
            error_code: 10002,
            error_message: `invalid key ${String(request.headers['x-cg-demo-api-key'])} in ${echo}`,
          },
        }),
      );
    } else {
      response.writeHead(403);
      response.end(JSON.stringify({ error: `forbidden: ${echo}` }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A webhook receiver (test/support/webhook.ts), closed after each test. */
async function webhook(): Promise<Webhook> {
  const hook = await startWebhook();
  closers.push(hook.close);
  return hook;
}

/** A Bot API stand-in for the control bot that quotes the token back in its errors, closed after the test. */
async function leakyBotApi(): Promise<BotApiStandIn> {
  const api = await botApi(controlToken);
  closers.push(api.close);
  const echo = {
    ok: false,
    error_code: 400,
    description: `Bad Request: no such chat for /bot${controlToken}/sendMessage`,
  };
  api.fail('sendMessage', 400, echo, 1);
  return api;
}

function leakyConfig(echo: string, hook: string, bot: string): string {
  const sources = `sources:
  backoffice: { type: file, path: quotes.json }
  gecko: { type: coingecko, pairs: [USDT/RUB], priority: 9, retries: 0 }
  ticker: { type: json, url: "${echo}/ticker?key=${encodeURIComponent(jsonKey)}&pair=btcusdt", pairs: { BTC/USDT: data.bid }, priority: 9, retries: 0 }
`;
  return `${sampleConfig
    .replace('sources:\n  backoffice: { type: file, path: quotes.json }\n', sources)
    .replace('SBERRUB: { reserve: "5000000" }', 'SBERRUB: { reserveFrom: office }')
    .replace('CASHRUB: { precision: 0, reserve: "3000000" }', 'CASHRUB: { precision: 0, reserveFrom: vault }')
    .replace(
      'currencies:\n',
      `reserves:
  office: { type: http, url: "${echo}/office/reserves", auth: { env: BACKOFFICE_TOKEN }, entries: echo, retries: 0 }
  vault: { type: http, url: "${echo}/vault/reserves", auth: { env: BACKOFFICE_TOKEN }, retries: 0 }
currencies:
`,
    )}alerts:
  webhook: { url: "${hook}", secretEnv: HOOK_SECRET }
${controlBlock(bot).replace('control:\n  telegram:\n', 'control:\n  telegram:\n    tokenEnv: OPS_CONTROL_BOT\n')}`;
}

/** One logger writing each line twice: as text into `text`, as JSON into `json`. */
function bothFormats(): { log: Logger; text: () => string; json: () => string } {
  let text = '';
  let json = '';
  const asText = createLogger({ write: (line: string) => (text += line) }, { format: () => 'text' });
  const asJson = createLogger({ write: (line: string) => (json += line) }, { format: () => 'json' });
  const both =
    (level: keyof Logger): Logger[keyof Logger] =>
    (message, fields) => {
      asText[level](message, fields);
      asJson[level](message, fields);
    };
  return { log: { info: both('info'), warn: both('warn'), error: both('error') }, text: () => text, json: () => json };
}

/** Every file under `dir` with its text; a temporary the running service renamed away while listing is skipped (its bytes are read under the new name). */
async function filesUnder(dir: string): Promise<{ path: string; text: string }[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const read = async (path: string) => {
    try {
      return [{ path, text: await readFile(path, 'utf8') }];
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' && path.endsWith('.tmp')) return [];
      throw error;
    }
  };
  const files = await Promise.all(
    entries.filter((entry) => entry.isFile()).map((entry) => read(join(entry.parentPath, entry.name))),
  );
  return files.flat();
}

/** The environment of the leaky config: each credential, and CoinGecko pointed at the echo server. */
const secretEnv = (echo: string) => ({
  BACKOFFICE_TOKEN: reserveHeader,
  RATEFILE_COINGECKO_KEY: coingeckoKey,
  RATEFILE_COINGECKO_URL: echo,
  HOOK_SECRET: hookSecret,
  OPS_CONTROL_BOT: controlToken,
});

describe('secrets', () => {
  it('no surface shows a credential echoed back by a third party, in any form', async () => {
    const echo = await echoServer();
    const hook = await webhook();
    const bot = await leakyBotApi();
    const made = await project({ 'ratefile.config.yaml': leakyConfig(echo, hook.url, bot.url) });
    const env = secretEnv(echo);
    const logs = bothFormats();
    const quiet = { write: () => true };
    const service: Service = await startService({
      config: await loadConfig(made.configPath),
      loadConfig: () => loadConfig(made.configPath),
      outDir: join(made.dir, 'public'),
      port: 0,
      host: '127.0.0.1',
      log: logs.log,
      deps: { now: () => new Date(), env, fetch: loopbackFetch },
      commands: controlRunner(
        {
          stdout: quiet,
          stderr: quiet,
          env,
          cwd: made.dir,
          now: () => new Date(),
          fetch: loopbackFetch,
          waitForStop: () => Promise.reject(new Error('no')),
        },
        made.configPath,
      ),
    });
    closers.push(() => service.stop());
    await service.rebuild();
    await service.alertsIdle();
    // The bot answers commands whose output quotes the sources' failures; its first reply is refused with the token quoted.
    for (const text of ['/status', '/explain USDTTRC20 CASHRUB', '/explain BTC SBERRUB'])
      bot.push(message(text, new Date(), { from: people.anna }));
    await bot.idle();
    const base = `http://127.0.0.1:${service.port}`;
    const pages = await Promise.all(
      ['/', '/dashboard.json', '/healthz', '/metrics'].map(async (path) => ({
        path,
        text: await (await fetch(base + path)).text(),
      })),
    );

    const cli = async (args: string[]) => {
      const outcome = await runRatefile(args, made.dir, { env, fetch: loopbackFetch });
      return `${outcome.stdout}\n${outcome.stderr}`;
    };
    const commands = {
      status: await cli(['status']),
      'status --json': await cli(['status', '--json']),
      explain: await cli(['explain', 'BTC', 'SBERRUB']),
      'explain (held back)': await cli(['explain', 'USDTTRC20', 'CASHRUB', '--log-format', 'json']),
      'build --log-format json': await cli(['build', '--log-format', 'json', '--dry-run']),
      build: await cli(['build']),
    };
    const state = await filesUnder(join(made.dir, '.ratefile'));

    // The test proves what it searches: the echoes did reach every surface that shows source problems.
    expect(pages.find((page) => page.path === '/healthz')?.text).toMatch(/gecko/);
    expect(logs.text()).toMatch(/office/);
    expect(commands.explain).toMatch(/ticker \(json\) FAILING/);
    expect(hook.bodies.length).toBeGreaterThan(0);
    expect(state.map((file) => file.path).join('\n')).toMatch(/status\.json/);
    expect(state.map((file) => file.path).join('\n')).toMatch(/alerts\.json/);
    expect(state.map((file) => file.path).join('\n')).toMatch(/control\/log\.jsonl/);
    expect(logs.text()).toMatch(
      /control: sendMessage failed: HTTP 400: Bad Request: no such chat for \/bot\*\*\*\/sendMessage/,
    );
    expect(bot.texts().join('\n')).toMatch(/ticker \(json\) FAILING/);

    const found = [
      ...pages.flatMap((page) => leaks(`GET ${page.path}`, page.text)),
      ...Object.entries(commands).flatMap(([command, output]) => leaks(`ratefile ${command}`, output)),
      ...leaks('log (text)', logs.text()),
      ...leaks('log (json)', logs.json()),
      ...state.flatMap((file) => leaks(file.path.slice(made.dir.length + 1), file.text)),
      ...hook.bodies.flatMap((body, index) => leaks(`alert ${index + 1}`, body)),
      ...bot.texts().flatMap((text, index) => leaks(`control reply ${index + 1}`, text)),
    ];
    expect(found).toEqual([]);
  });
});

describe('secrets in the real binary', () => {
  it('`ratefile start --log-format json` as a process of its own: no credential in its log, pages or alerts', async () => {
    const echo = await echoServer();
    const hook = await webhook();
    const bot = await leakyBotApi();
    // The token refused, quoted back in the refusal.
    bot.fail('getMe', 401, { ok: false, error_code: 401, description: `Unauthorized: bot${controlToken}` }, 1000);
    const made = await project({ 'ratefile.config.yaml': leakyConfig(echo, hook.url, bot.url) });
    const env = secretEnv(echo);
    const service = spawnRatefile(['start', '--port', '0', '--host', '127.0.0.1', '--log-format', 'json'], {
      cwd: made.dir,
      env,
    });
    const base = await waitForServing(service);
    await pollUntil(async () => (hook.bodies.length > 0 ? true : undefined), 20_000);
    await pollUntil(async () => (/the Bot API refuses the token/.test(service.stderr()) ? true : undefined), 20_000);
    const pages = await Promise.all(
      ['', 'dashboard.json', 'healthz', 'metrics'].map(async (path) => ({
        path,
        text: await (await fetch(base + path)).text(),
      })),
    );
    await service.stop('SIGTERM');
    const state = await filesUnder(join(made.dir, '.ratefile'));
    expect(service.stderr()).toMatch(/"msg":"source gecko failed: gecko: GET \/api\/v3\/simple\/price: HTTP 400/);
    expect(service.stderr()).toMatch(/vault: GET \/vault\/reserves: HTTP 401 Unauthorized: unauthorized: GET/);
    expect(service.stderr()).toMatch(/control: the Bot API refuses the token \(HTTP 401: Unauthorized: bot\*\*\*\)/);
    const found = [
      ...leaks('log (json)', service.stderr()),
      ...leaks('stdout', service.stdout()),
      ...pages.flatMap((page) => leaks(`GET /${page.path}`, page.text)),
      ...state.flatMap((file) => leaks(file.path.slice(made.dir.length + 1), file.text)),
      ...hook.bodies.flatMap((body, index) => leaks(`alert ${index + 1}`, body)),
    ];
    expect(found).toEqual([]);
  }, 60_000);
});

/** Any C0 or C1 control but the newline, or DEL: what would clear a screen or forge a line. */
const rawControl = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

describe('control characters from outside', () => {
  it('explain shows a feed exchanger named with terminal escapes escaped, never raw', async () => {
    const feed = Buffer.from(
      dump({
        ...base,
        'bm_exch.dat': '10;Evil\u001b[2J\u001b[H\u0007;;0;1\n20;Beta;;0;1\n',
        'bm_rates.dat': ['2;1;10;1;4960000;9000000;0.1;0;0.001;2;0', '2;1;20;1;4950000;9000000;0.1;0;0.001;2;0'].join(
          '\r\n',
        ),
      }),
    );
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'application/zip' });
      response.end(feed);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));
    const made = await project({
      'ratefile.config.yaml': `sources:
  backoffice: { type: file, path: quotes.json, maxAge: "off" }
  bc: { type: bestchange, baseUrl: "http://127.0.0.1:${(server.address() as AddressInfo).port}", retries: 0 }
currencies:
  BTC: { reserve: "3" }
  SBERRUB: { reserve: "5000000" }
directions:
  - { from: BTC, to: SBERRUB, margin: 2%, compete: { place: 2, floor: 0.5%, ceiling: 3% } }
`,
      'quotes.json': JSON.stringify({ quotes: [{ pair: 'BTC/RUB', bid: '5000000', ask: '5000100' }] }),
      'templates/reffile.yaml': 'include: { tags: [ref] }\n',
    });
    const outcome = await runRatefile(['explain', 'BTC', 'SBERRUB'], made.dir, { fetch: loopbackFetch });
    expect(outcome.stdout).toContain('Evil\\u001b[2J\\u001b[H\\u0007 (#10)');
    expect(outcome.stdout).not.toMatch(rawControl);
  });

  it('status shows a hand-edited pause reason with terminal escapes escaped, as text and as JSON', async () => {
    const made = await project();
    expect((await runRatefile(['pause', 'BTC', 'SBERRUB', '--reason', 'bank holiday'], made.dir)).code).toBe(0);
    const file = join(made.dir, '.ratefile', 'paused', 'BTC-SBERRUB');
    const pause = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    await writeFile(file, JSON.stringify({ ...pause, reason: 'ok\u001b[2J\u001b[H\u0085ratefile: all good\u2028' }));
    expect((await runRatefile(['build'], made.dir)).code).toBe(0);
    const text = await runRatefile(['status'], made.dir);
    expect(text.stdout).toContain('ok\\u001b[2J\\u001b[H\\u0085ratefile: all good\\u2028');
    expect(text.stdout).not.toMatch(rawControl);
    expect(text.stdout).not.toContain('\u2028');
    const json = await runRatefile(['status', '--json'], made.dir);
    expect(json.stdout).not.toMatch(rawControl);
    expect(json.stdout).not.toContain('\u2028');
    // Still the reason, read back as JSON.
    expect(json.stdout).toContain('ok\\u001b[2J');
  });
});
