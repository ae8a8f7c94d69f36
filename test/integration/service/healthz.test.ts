// /healthz and the build log: the real `ratefile start` on 127.0.0.1 (a good build, then a config broken
// mid-run), startService in-process with a fake clock, and the logger's formats and colours.
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { run, type CliDeps } from '../../../src/cli.js';
import { loadConfig } from '../../../src/io/config/load.js';
import { createLogger, wantsColour, type Writer } from '../../../src/base/log.js';
import { startService } from '../../../src/service/start/service.js';
import { buildsRun, waitForBuildsRun } from '../../support/builds.js';
import { pollUntil } from '../../support/http.js';
import { assertBuilt, spawnRatefile, stopAll, waitForServing, type RatefileProcess } from '../../support/process.js';
import { everySecondConfig, projectsPerTest, type Project } from '../../support/project.js';
import { xmlErrors } from '../../support/xml.js';
import type { Status } from '../../../src/pure/status/report.js';

const exportFiles = ['parserfile.xml', 'reffile.xml', 'affiliatefile.xml'] as const;
const everySecond = everySecondConfig;
/** A second source whose file does not exist: it fails every build, and the directions do not need it. */
const withFailingSource = replaceOnce(
  everySecond,
  'sources:\n  backoffice: { type: file, path: quotes.json, maxAge: "off" }\n',
  'sources:\n  backoffice: { type: file, path: quotes.json, maxAge: "off" }\n  spare: { type: file, path: missing.json }\n',
);
const ansi = /\u001b\[/;

function replaceOnce(text: string, from: string, to: string): string {
  if (!text.includes(from)) throw new Error(`the sample config no longer contains ${JSON.stringify(from)}`);
  return text.replace(from, to);
}

type Health = Partial<Omit<Status, 'health'>> & { level: string; reasons: string[] };

// Hooks run last-registered first: processes and services stop before their project folders are removed.
const project = projectsPerTest();
const services: { stop(): Promise<void> }[] = [];
afterEach(async () => {
  await stopAll();
  await Promise.all(services.splice(0).map((service) => service.stop()));
});

/** Replace a file atomically, the way a deploy should: the service never reads half of it. */
async function replaceFile(path: string, content: string): Promise<void> {
  const temporary = `${path}.${process.pid}.new`;
  await writeFile(temporary, content);
  await rename(temporary, path);
}

function start(made: Project, before: readonly string[] = []): RatefileProcess {
  return spawnRatefile([...before, 'start', '--config', made.configPath, '--port', '0', '--host', '127.0.0.1'], {
    cwd: made.dir,
  });
}

async function healthz(base: string): Promise<{ status: number; type: string | null; body: Health }> {
  const response = await fetch(new URL('healthz', base));
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    body: (await response.json()) as Health,
  };
}

const buildLines = (stderr: string) => stderr.split('\n').filter((line) => / info build: /.test(line));

beforeAll(() => assertBuilt());

describe('ratefile start: /healthz', () => {
  it('200 ok after a good build; 200 degraded while the config file is rejected and the last good config still builds; ok when fixed', async () => {
    const made = await project({ 'ratefile.config.yaml': everySecond });
    const proc = start(made);
    const base = await waitForServing(proc);

    const good = await healthz(base);
    expect(good.status, JSON.stringify(good.body)).toBe(200);
    expect(good.type).toBe('application/json; charset=utf-8');
    expect(good.body).toMatchObject({
      level: 'ok',
      reasons: [],
      lastBuild: { ok: true },
      schedulePeriodMs: 1000,
      maintenance: false,
      published: ['BTC>SBERRUB', 'BTC>USDTTRC20', 'SBERRUB>USDTTRC20', 'USDTTRC20>CASHRUB'],
      heldBack: [],
      sources: [expect.objectContaining({ name: 'backoffice', type: 'file', ok: true, quotes: 2 })],
    });
    // One level with its reasons: none of the old fields that said it again (healthy, reason, health).
    expect(Object.keys(good.body).filter((key) => ['healthy', 'reason', 'health'].includes(key))).toEqual([]);
    // The same JSON as `ratefile status --json` and .ratefile/status.json.
    const onDisk = JSON.parse(await readFile(join(made.dir, '.ratefile', 'status.json'), 'utf8')) as Status;
    expect(onDisk.version).toBe(1);

    const served = new Map<string, string>();
    for (const file of exportFiles) {
      const response = await fetch(new URL(file, base));
      const text = await response.text();
      expect(response.status).toBe(200);
      expect(await xmlErrors(text, file)).toEqual([]);
      expect(text).toMatch(/<item>/);
      served.set(file, text);
    }

    await replaceFile(made.configPath, `${everySecond}directions: [ { from: BTC\n`);
    await proc.waitForLog(
      / error config reload rejected, the last good config still serves: ratefile\.config\.yaml: not valid YAML/,
    );
    const broken = await pollUntil(async () => {
      const answer = await healthz(base);
      return answer.body.level === 'degraded' ? answer : undefined;
    }, 5_000);
    expect(broken.status).toBe(200);
    expect(broken.body).toMatchObject({
      reasons: [
        expect.stringMatching(
          /^config reload rejected, the last good config still serves: ratefile\.config\.yaml: not valid YAML — line \d+, column \d+: /,
        ),
      ],
      configError: expect.stringMatching(/^ratefile\.config\.yaml: not valid YAML/),
      lastBuild: { ok: true },
      lastSuccessAt: expect.any(String),
      // What the last good build published is still what is served.
      published: ['BTC>SBERRUB', 'BTC>USDTTRC20', 'SBERRUB>USDTTRC20', 'USDTTRC20>CASHRUB'],
    });
    // Builds go on with the last good config; the rejection is logged once, not once per build.
    await waitForBuildsRun(base, (await buildsRun(base)) + 2);
    expect(proc.stderr().match(/config reload rejected/g)).toHaveLength(1);
    for (const file of exportFiles) {
      const response = await fetch(new URL(file, base));
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(served.get(file));
      expect(await readFile(join(made.dir, 'public', file), 'utf8')).toBe(served.get(file));
    }
    expect(proc.child.exitCode).toBeNull(); // the service keeps running

    await replaceFile(made.configPath, everySecond);
    const fixed = await pollUntil(async () => {
      const answer = await healthz(base);
      return answer.body.level === 'ok' ? answer : undefined;
    }, 5_000);
    expect(fixed.status).toBe(200);
    expect(fixed.body.configError).toBeUndefined();
    await proc.waitForLog(/ info config reload accepted again/);
    expect(Date.parse(fixed.body.lastBuild?.at ?? '')).toBeGreaterThan(Date.parse(broken.body.lastBuild?.at ?? ''));
  });

  it('a source that fails does not fail the build or the health check, and the service keeps running', async () => {
    const made = await project({ 'ratefile.config.yaml': withFailingSource });
    const proc = start(made);
    const base = await waitForServing(proc);
    await waitForBuildsRun(base, 3);
    const answer = await healthz(base);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ level: 'degraded', reasons: ['failing source: spare'] });
    expect(answer.body.sources).toEqual([
      expect.objectContaining({ name: 'backoffice', ok: true }),
      expect.objectContaining({
        name: 'spare',
        ok: false,
        lastError: expect.stringMatching(/^spare: cannot read quotes file .*missing\.json/),
      }),
    ]);
    expect(proc.child.exitCode).toBeNull();
  });
});

describe('ratefile start: the build log', () => {
  it('one text line for the first build: published, held back, files, duration, failing sources; none while builds change nothing', async () => {
    const made = await project({ 'ratefile.config.yaml': withFailingSource });
    const proc = start(made);
    const base = await waitForServing(proc);
    await waitForBuildsRun(base, 4);
    const stopped = await proc.stop('SIGTERM');
    expect(stopped).toEqual({ code: 0, signal: null });
    const lines = proc
      .stderr()
      .split('\n')
      .filter((line) => line !== '');
    expect(lines.join('\n')).not.toMatch(ansi); // stderr is a pipe, not a terminal

    // Four builds or more, the same quotes and the same failing source: one line, the first build's.
    const builds = buildLines(proc.stderr());
    expect(builds).toEqual([
      expect.stringMatching(
        /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z info build: published 4 directions, 0 held back; affiliatefile\.xml 3 items \(written\), parserfile\.xml 5 items \(written\), reffile\.xml 4 items \(written\); \d+ ms; failing sources: spare$/,
      ),
    ]);
    // The failing source is reported once, not at every build.
    expect(lines.filter((line) => / warn source spare failed: /.test(line))).toHaveLength(1);
    // Nothing else is logged per build: the build lines, the one warning, serving, the stop.
    const others = lines.filter((line) => !builds.includes(line) && !/ warn source spare failed: /.test(line));
    expect(others.map((line) => line.replace(/^\S+ /, ''))).toEqual([
      expect.stringMatching(
        /^info serving .* at http:\/\/127\.0\.0\.1:\d+\/ \((affiliatefile|parserfile|reffile)\.xml, (affiliatefile|parserfile|reffile)\.xml, (affiliatefile|parserfile|reffile)\.xml\); rebuilding on "\*\/1 \* \* \* \* \*"$/,
      ),
      // Once, after the serving line: the file source's quotes never expire (its maxAge is off).
      expect.stringMatching(/^info source backoffice: maxAge "off": the quotes of quotes\.json are used however old /),
      'info SIGTERM: finishing the running build, then stopping',
      'info stopped',
    ]);
  });

  it('--log-format json: every line is one JSON object; a build line carries its facts as fields', async () => {
    const made = await project({ 'ratefile.config.yaml': withFailingSource });
    const proc = start(made, ['--log-format', 'json']);
    const base = (await proc.waitForLog(/"msg":"serving .* at (http:\/\/127\.0\.0\.1:\d+\/)/))[1]!;
    await waitForBuildsRun(base, 2);
    expect((await proc.stop('SIGTERM')).code).toBe(0);

    const lines = proc
      .stderr()
      .split('\n')
      .filter((line) => line !== '');
    expect(lines.join('\n')).not.toMatch(ansi);
    const records = lines.map((line) => {
      expect(() => JSON.parse(line) as unknown, line).not.toThrow();
      return JSON.parse(line) as Record<string, unknown>;
    });
    for (const record of records) {
      expect(record).toMatchObject({
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        level: expect.stringMatching(/^(info|warn|error)$/),
        msg: expect.any(String),
      });
    }
    // Two builds or more, alike: the first one's line.
    const builds = records.filter((record) => record.event === 'build');
    expect(builds).toHaveLength(1);
    for (const record of builds) {
      expect(record).toMatchObject({
        level: 'info',
        msg: expect.stringMatching(/^build: published 4 directions, 0 held back; .*; failing sources: spare$/),
        maintenance: false,
        published: 4,
        heldBack: 0,
        durationMs: expect.any(Number),
        failingSources: ['spare'],
        exports: [
          { file: 'affiliatefile.xml', items: 3, written: true },
          { file: 'parserfile.xml', items: 5, written: true },
          { file: 'reffile.xml', items: 4, written: true },
        ],
      });
    }
    expect(records.filter((record) => record.level === 'warn').map((record) => record.msg)).toEqual([
      expect.stringMatching(/^source spare failed: /),
    ]);
    expect(records.at(-1)).toMatchObject({ level: 'info', msg: 'stopped' });
  });
});

describe('startService in-process: /healthz follows the clock', () => {
  it('503 when the last build is older than three schedule periods', async () => {
    const made = await project();
    const config = await loadConfig(made.configPath);
    let now = new Date('2026-11-21T12:00:30Z');
    let log = '';
    const service = await startService({
      config,
      loadConfig: () => loadConfig(made.configPath),
      outDir: join(made.dir, 'public'),
      port: 0,
      host: '127.0.0.1',
      log: createLogger({ write: (text: string) => (log += text) }),
      deps: { now: () => now },
    });
    services.push(service);
    const base = `http://127.0.0.1:${service.port}/`;
    expect(log).toMatch(/info build: published 4 directions/);
    expect((await healthz(base)).status).toBe(200);
    now = new Date(now.getTime() + 90_000); // three periods of 30 s: still fine
    expect((await healthz(base)).status).toBe(200);
    now = new Date(now.getTime() + 1_000);
    const late = await healthz(base);
    expect(late.status).toBe(503);
    expect(late.body).toMatchObject({
      level: 'failing',
      reasons: ['last successful build is 91 s old (limit 90 s)'],
      lastBuild: { ok: true },
    });
    // A build brings it back.
    await service.rebuild();
    expect((await healthz(base)).status).toBe(200);
  });
});

describe('log colours', () => {
  /** A writer that says it is a terminal, as process.stderr does on one. */
  function terminal(): Writer & { isTTY: true; text: () => string } {
    let text = '';
    return {
      isTTY: true,
      write(chunk: string) {
        text += chunk;
        return true;
      },
      text: () => text,
    };
  }

  it.each([
    ['a terminal', true, true, {}],
    ['a terminal with NO_COLOR=1', false, true, { NO_COLOR: '1' }],
    ['a terminal with NO_COLOR=0 (any value counts)', false, true, { NO_COLOR: '0' }],
    ['a terminal with NO_COLOR empty (unset, per no-color.org)', true, true, { NO_COLOR: '' }],
    ['a pipe', false, false, {}],
  ])('%s: colour %s', (_what, colour, tty, env: Record<string, string>) => {
    const out = tty ? terminal() : { write: () => true };
    expect(wantsColour(out, env)).toBe(colour);
  });

  it('the logger colours the level only when asked, and never in JSON', () => {
    const at = () => new Date('2026-11-21T12:00:00Z');
    const coloured = terminal();
    createLogger(coloured, { now: at, colour: true }).warn('careful');
    expect(coloured.text()).toBe('2026-11-21T12:00:00.000Z \u001b[33mwarn\u001b[0m careful\n');
    const plain = terminal();
    createLogger(plain, { now: at, colour: false }).warn('careful');
    expect(plain.text()).toBe('2026-11-21T12:00:00.000Z warn careful\n');
    const json = terminal();
    createLogger(json, { now: at, colour: true, format: () => 'json' }).error('broken', { source: 'x' });
    expect(json.text()).toBe('{"time":"2026-11-21T12:00:00.000Z","level":"error","msg":"broken","source":"x"}\n');
  });

  async function buildOn(stderr: Writer, env: Record<string, string>, extra: readonly string[] = []): Promise<number> {
    const made = await project();
    const deps: CliDeps = {
      stdout: { write: () => true },
      stderr,
      env,
      cwd: made.dir,
      now: () => new Date('2026-11-21T12:00:30Z'),
      fetch: () => Promise.reject(new Error('offline')),
      waitForStop: () => Promise.reject(new Error('not expected')),
    };
    return run(['node', 'ratefile', ...extra, 'build'], deps);
  }

  it('ratefile build on a terminal colours its log line; NO_COLOR, a pipe and --log-format json do not', async () => {
    const tty = terminal();
    expect(await buildOn(tty, {})).toBe(0);
    expect(tty.text()).toMatch(/^\S+ \u001b\[36minfo\u001b\[0m build: published 4 directions/);

    const noColor = terminal();
    expect(await buildOn(noColor, { NO_COLOR: '1' })).toBe(0);
    expect(noColor.text()).toMatch(/^\S+ info build: published 4 directions/);
    expect(noColor.text()).not.toMatch(ansi);

    let piped = '';
    expect(await buildOn({ write: (text: string) => (piped += text) }, {})).toBe(0);
    expect(piped).toMatch(/^\S+ info build: /);
    expect(piped).not.toMatch(ansi);

    const json = terminal();
    expect(await buildOn(json, {}, ['--log-format', 'json'])).toBe(0);
    expect(json.text()).not.toMatch(ansi);
    expect(JSON.parse(json.text())).toMatchObject({ level: 'info', event: 'build', published: 4 });
  });
});
