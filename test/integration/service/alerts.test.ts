// Alerts on loopback: a real webhook receiver, a server speaking the Telegram Bot API's sendMessage and a real
// SMTP server (smtp-server) get one message when a problem starts and one when it ends, a reminder when the
// interval passes (clock injected), nothing new after a restart; a channel that hangs delays no build. And the real
// binary killed while its webhook receiver is down: after the restart the problem arrives once, then its end.
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';
import { afterEach, describe, expect, it } from 'vitest';
import { pollUntil } from '../../support/http.js';
import { spawnRatefile, stopAll } from '../../support/process.js';
import { projectsPerTest, sampleConfig, sampleQuotes, type Project } from '../../support/project.js';
import { servicesPerTest } from '../../support/service.js';

const project = projectsPerTest();
const start = servicesPerTest();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await stopAll();
  await Promise.all(closers.splice(0).map((close) => close()));
});

const env = { HOOK_SECRET: 'hook-secret-123', TELEGRAM_BOT_TOKEN: '123456:SECRET-token', TELEGRAM_CHAT_ID: '-1001' };

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** An HTTP server on 127.0.0.1 recording each request; `answer` decides the reply (default 200 JSON ok). */
async function receiver(
  answer?: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ path: request.url ?? '', headers: request.headers, body });
      if (answer) answer(request, response);
      else {
        response.writeHead(200, { 'Content-Type': 'application/json' });
        response.end('{"ok":true,"result":{}}');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, server };
}

async function smtp(): Promise<{ port: number; mails: string[] }> {
  const mails: string[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      let data = '';
      stream.on('data', (chunk: Buffer) => (data += chunk.toString()));
      stream.on('end', () => {
        mails.push(data);
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { port: (server.server.address() as AddressInfo).port, mails };
}

function alertsConfig(webhook: string, telegram: string, smtpPort: number, reminder = '1h'): string {
  return `${sampleConfig}alerts:
  reminder: ${reminder}
  webhook: { url: "${webhook}/hook", secretEnv: HOOK_SECRET }
  telegram: { baseUrl: "${telegram}" }
  email: { host: 127.0.0.1, port: ${smtpPort}, from: ratefile@exchanger.example, to: [ops@exchanger.example] }
`;
}

/** A clock the test moves, and the quotes file kept as fresh as it (quotes without a time are as old as their file). */
function clock(made: Project) {
  let now = new Date();
  const quotes = join(made.dir, 'quotes.json');
  return {
    now: () => now,
    advance: (ms: number) => (now = new Date(now.getTime() + ms)),
    fresh: async () => {
      await writeFile(quotes, JSON.stringify(sampleQuotes));
      await utimes(quotes, now, now);
    },
    broken: () => rm(quotes, { force: true }),
  };
}

describe('alerts', () => {
  it('20 builds of a source failing then recovering: one message when it starts and one when it ends, on every channel', async () => {
    const hook = await receiver();
    const telegram = await receiver();
    const mail = await smtp();
    const made = await project({ 'ratefile.config.yaml': alertsConfig(hook.url, telegram.url, mail.port) });
    const time = clock(made);
    await time.fresh();
    const service = await start(made, { now: time.now, env });
    let brokenAt = '';
    for (let build = 2; build <= 20; build += 1) {
      // Builds 6..12 without a quotes file, three minutes on: the source fails and its quotes are too old to stand in.
      time.advance(build === 6 ? 180_000 : 30_000);
      if (build === 6) {
        await time.broken();
        brokenAt = time.now().toISOString();
      }
      if (build < 6 || build >= 13) await time.fresh();
      await service.rebuild();
    }
    await service.alertsIdle();

    expect(hook.received).toHaveLength(2);
    const [started, ended] = hook.received.map(
      (r) => JSON.parse(r.body) as { id: string; level: string; events: { kind: string; key: string; text: string }[] },
    );
    // Within the build that found the problem.
    expect(started).toMatchObject({ at: brokenAt, level: 'failing' });
    expect(started?.events.map((e) => `${e.kind} ${e.key}`).sort()).toEqual([
      'start health:failing',
      'start source:backoffice',
      'start withheld:BTC>SBERRUB',
      'start withheld:BTC>USDTTRC20',
      'start withheld:SBERRUB>USDTTRC20',
      'start withheld:USDTTRC20>CASHRUB',
    ]);
    expect(ended?.level).toBe('ok');
    expect(ended?.events.map((e) => e.kind)).toEqual(Array(6).fill('end'));
    for (const request of hook.received) {
      expect(request.path).toBe('/hook');
      expect(request.headers['x-ratefile-signature']).toBe(
        `sha256=${createHmac('sha256', env.HOOK_SECRET).update(request.body).digest('hex')}`,
      );
    }

    expect(telegram.received).toHaveLength(2);
    expect(telegram.received.map((r) => r.path)).toEqual(Array(2).fill(`/bot${env.TELEGRAM_BOT_TOKEN}/sendMessage`));
    const texts = telegram.received.map((r) => JSON.parse(r.body) as { chat_id: string; text: string });
    expect(texts[0]?.chat_id).toBe(env.TELEGRAM_CHAT_ID);
    expect(texts[0]?.text).toContain('PROBLEM: BTC → SBERRUB withheld: ');
    expect(texts[0]?.text).toContain('PROBLEM: source backoffice failing: ');
    expect(texts[1]?.text).toContain('RESOLVED: was source backoffice failing');

    expect(mail.mails).toHaveLength(2);
    expect(mail.mails[0]).toMatch(/Subject: =\?UTF-8\?Q\?ratefile_failing=3A_/);
    expect(mail.mails[0]).toMatch(/To: ops@exchanger\.example/);

    // Each message carries one id, the same on every channel: the webhook's body and headers, Telegram's last line, the email's Message-ID.
    const ids = [started?.id, ended?.id];
    expect(new Set(ids).size).toBe(2);
    for (const [index, id] of ids.entries()) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(hook.received[index]?.headers['x-ratefile-alert-id']).toBe(id);
      expect(hook.received[index]?.headers['idempotency-key']).toBe(id);
      expect(texts[index]?.text.endsWith(`\n\nalert ${id}`)).toBe(true);
      expect(mail.mails[index]).toContain(`Message-ID: <${id}@ratefile>`);
      expect(mail.mails[index]).toMatch(new RegExp(`^X-Ratefile-Alert-Id: ${id}\\r?$`, 'im'));
    }

    // No secret in the status.
    const status = JSON.stringify(service.status());
    for (const secret of Object.values(env)) expect(status).not.toContain(secret);
  });

  it('a reminder when the interval passes; after a restart a known problem is not alerted again, its end is', async () => {
    const hook = await receiver();
    const telegram = await receiver();
    const mail = await smtp();
    const made = await project({ 'ratefile.config.yaml': alertsConfig(hook.url, telegram.url, mail.port, '10m') });
    const time = clock(made);
    await time.broken();
    const first = await start(made, { now: time.now, env });
    time.advance(9 * 60_000);
    await first.rebuild(); // 9 minutes: no reminder yet
    time.advance(60_000);
    await first.rebuild(); // 10 minutes: the reminder
    await first.alertsIdle();
    expect(hook.received.map((r) => (JSON.parse(r.body) as { events: { kind: string }[] }).events[0]?.kind)).toEqual([
      'start',
      'reminder',
    ]);
    expect((JSON.parse(telegram.received[1]?.body ?? '{}') as { text: string }).text).toMatch(/^STILL: /);
    expect(mail.mails).toHaveLength(2);
    await first.stop();

    // `systemctl restart`: the same problem goes on, and nobody is told again.
    time.advance(30_000);
    const second = await start(made, { now: time.now, env });
    await second.alertsIdle();
    expect(hook.received).toHaveLength(2);
    await time.fresh();
    time.advance(30_000);
    await time.fresh();
    await second.rebuild();
    await second.alertsIdle();
    expect(hook.received).toHaveLength(3);
    expect(
      (JSON.parse(hook.received[2]?.body ?? '{}') as { events: { kind: string }[] }).events.every(
        (e) => e.kind === 'end',
      ),
    ).toBe(true);
    expect(telegram.received).toHaveLength(3);
    expect(mail.mails).toHaveLength(3);
  });

  it('a channel that hangs delays no build, and its failure is logged once without the secret', async () => {
    // The webhook receiver takes each request and never answers; Telegram answers 500.
    const hook = await receiver(() => undefined);
    const telegram = await receiver((_request, response) => {
      response.writeHead(500);
      response.end(`bad token ${env.TELEGRAM_BOT_TOKEN}`);
    });
    const made = await project({ 'ratefile.config.yaml': alertsConfig(hook.url, telegram.url, 9) });
    const time = clock(made);
    await time.broken();
    let log = '';
    const service = await start(made, { now: time.now, env, log: (text) => (log += text) });
    for (let build = 0; build < 3; build += 1) {
      time.advance(30_000);
      await service.rebuild();
    }
    // Every build finished while the webhook still holds the first alert unanswered.
    expect(hook.received).toHaveLength(1);
    expect(service.status()?.lastBuild.at).toBe(time.now().toISOString());
    await pollUntil(async () => (/alert channel telegram failing/.test(log) ? true : undefined), 5_000, 20);
    expect(log.match(/alert channel telegram failing/g)).toHaveLength(1);
    expect(log).toMatch(/alert channel telegram failing, retrying until it works: HTTP 500/);
    for (const secret of Object.values(env)) expect(log).not.toContain(secret);
  });
});

describe('alerts across an outage and a crash', () => {
  it('the receiver is down while `ratefile start` finds a problem, is killed and restarted with the problem gone: it gets the PROBLEM once, then the RESOLVED once, by id', async () => {
    const hook = await receiver();
    const port = (hook.server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => {
      hook.server.close(() => resolve());
      hook.server.closeAllConnections();
    });
    const made = await project({
      'ratefile.config.yaml': `${sampleConfig}alerts:\n  webhook: { url: "${hook.url}/hook" }\n`,
    });
    const outbox = async () =>
      (
        JSON.parse(await readFile(join(made.dir, '.ratefile', 'alerts.json'), 'utf8')) as {
          outbox?: { id: string; events: { kind: string }[] }[];
        }
      ).outbox ?? [];
    const run = () =>
      spawnRatefile(['start', '--config', made.configPath, '--port', '0', '--host', '127.0.0.1'], { cwd: made.dir });

    await rm(join(made.dir, 'quotes.json'));
    const first = run();
    await first.waitForLog(/alert channel webhook failing/);
    await first.stop('SIGKILL');
    const pending = await outbox();

    // The quotes are back: the restarted service's first build ends the problem, while the receiver is still down.
    await writeFile(join(made.dir, 'quotes.json'), JSON.stringify(sampleQuotes));
    const second = run();
    await second.waitForLog(/alert channel webhook failing/);
    await new Promise<void>((resolve) => hook.server.listen(port, '127.0.0.1', resolve));
    await second.waitForLog(/alert channel webhook works again/);
    await pollUntil(async () => ((await outbox()).length === 0 ? true : undefined), 20_000, 50);

    const bodies = hook.received.map((r) => JSON.parse(r.body) as { id: string; events: { kind: string }[] });
    expect(bodies.map((b) => [...new Set(b.events.map((e) => e.kind))])).toEqual([['start'], ['end']]);
    // The PROBLEM delivered is the one the killed process left in its outbox.
    expect(pending.map((m) => [m.id, m.events.every((e) => e.kind === 'start')])).toEqual([[bodies[0]?.id, true]]);
    expect(new Set(bodies.map((b) => b.id)).size).toBe(2);
    expect(hook.received.map((r) => r.headers['x-ratefile-alert-id'])).toEqual(bodies.map((b) => b.id));
    expect(second.stderr()).not.toMatch(/dropped|given up/);
  });
});
