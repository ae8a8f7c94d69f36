// The readers' pure parts and the access-log reader on real files: combined-format lines as nginx writes them,
// CIDR matching, attribution, the bounded fetch log, the monitors' states, and the `monitors:` block's problems.
import { appendFile, mkdtemp, rename, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/io/config/load.js';
import { RatefileError } from '../../../../src/base/errors.js';
import { monitorMatcher, networkMatcher } from '../../../../src/pure/readers/addresses.js';
import { MAX_LINE, parseCombinedLine, parseLogTime } from '../../../../src/pure/readers/combined.js';
import { normalizeMonitors } from '../../../../src/model/readers.js';
import { FetchLog, RING_SIZE, fetchProblem, type Fetch } from '../../../../src/pure/readers/fetches.js';
import { AccessLogReader } from '../../../../src/io/readers/nginx-log.js';
import { monitorProblems, watchMonitors } from '../../../../src/pure/readers/watch.js';
import { makeProject, sampleConfig, type Project } from '../../../support/project.js';

const folders: string[] = [];
const projects: Project[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  await Promise.all(projects.splice(0).map((p) => p.remove()));
});

// As nginx 1.22 writes them with `log_format combined` (a `"` in a variable becomes \x22).
const lines = {
  full: '203.0.113.7 - - [26/Nov/2026:04:40:05 +0300] "GET /parserfile.xml HTTP/1.1" 200 5120 "-" "Mozilla/5.0 (compatible; BestChangeBot/1.0)"',
  notModified: '2001:db8::7 - - [26/Nov/2026:01:40:06 +0000] "GET /parserfile.xml?x=1 HTTP/1.1" 304 0 "-" "curl/8.5.0"',
  head: '198.51.100.2 - alice [26/Nov/2026:01:40:07 +0000] "HEAD /reffile.xml HTTP/1.0" 200 0 "https://ref.example/" "Say \\x22hi\\x22 \\xD0\\x9F"',
  garbage: '203.0.113.7 - - [26/Nov/2026:01:40:05 +0000] "\\x16\\x03\\x01" 400 157 "-" "-"',
};

describe('combined-format lines', () => {
  it('reads the fields of each kind of line', () => {
    expect(parseCombinedLine(lines.full)).toEqual({
      at: Date.parse('2026-11-26T01:40:05Z'),
      address: '203.0.113.7',
      method: 'GET',
      path: '/parserfile.xml',
      status: 200,
      bytes: 5120,
      agent: 'Mozilla/5.0 (compatible; BestChangeBot/1.0)',
    });
    expect(parseCombinedLine(lines.notModified)).toMatchObject({
      path: '/parserfile.xml',
      status: 304,
      address: '2001:db8::7',
    });
    expect(parseCombinedLine(lines.head)).toMatchObject({ method: 'HEAD', path: '/reffile.xml', agent: 'Say "hi" П' });
  });

  it('refuses what is not a combined line, and a line longer than MAX_LINE', () => {
    expect(parseCombinedLine(lines.garbage)).toBeUndefined();
    expect(parseCombinedLine('127.0.0.1 - - [26/Nov/2026:01:40:05 +0000] "GET / HTTP/1.1" 200')).toBeUndefined();
    expect(parseCombinedLine('')).toBeUndefined();
    expect(parseCombinedLine(`${lines.full.slice(0, -1)}${'x'.repeat(MAX_LINE)}"`)).toBeUndefined();
    expect(parseLogTime('26/Foo/2026:01:40:05 +0000')).toBeUndefined();
  });
});

describe('addresses and attribution', () => {
  it('matches IPv4 and IPv6 networks, and IPv4-mapped IPv6 addresses as IPv4', () => {
    const inside = networkMatcher(['162.19.0.0/16', '46.4.58.77', '2001:db8::/32']);
    expect(inside('162.19.29.225')).toBe(true);
    expect(inside('162.20.0.1')).toBe(false);
    expect(inside('46.4.58.77')).toBe(true);
    expect(inside('46.4.58.78')).toBe(false);
    expect(inside('::ffff:46.4.58.77')).toBe(true);
    expect(inside('2001:db8:1::5')).toBe(true);
    expect(inside('2001:db9::5')).toBe(false);
    expect(inside('not an address')).toBe(false);
  });

  it('takes the first monitor whose patterns all match', () => {
    const monitors = normalizeMonitors({
      bestchange: { agent: 'BestChangeBot', address: ['203.0.113.0/24'], window: 60_000 },
      sumo: { agent: '/^Sumo\\//', window: 60_000 },
      any: { address: '198.51.100.0/24', window: 60_000 },
    });
    const monitorOf = monitorMatcher(monitors);
    expect(monitorOf('203.0.113.7', 'x bestchangebot/1')).toBe('bestchange');
    // The right agent from elsewhere is not that monitor.
    expect(monitorOf('192.0.2.1', 'BestChangeBot')).toBeUndefined();
    expect(monitorOf('192.0.2.1', 'Sumo/2.0')).toBe('sumo');
    expect(monitorOf('192.0.2.1', 'NotSumo/2.0')).toBeUndefined();
    expect(monitorOf('198.51.100.9', '')).toBe('any');
  });
});

const fetch = (at: number, more: Partial<Fetch> = {}): Fetch => ({
  at,
  export: 'parserfile.xml',
  address: '203.0.113.7',
  agent: 'BestChangeBot',
  status: 200,
  body: 'full',
  bytes: 100,
  monitor: 'bestchange',
  ...more,
});

describe('the fetch log', () => {
  it('keeps a ring per export and monitor, counts everything, and only configured exports and monitors', () => {
    const log = new FetchLog(['parserfile.xml'], ['bestchange']);
    for (let i = 0; i < RING_SIZE + 5; i++)
      log.record(fetch(i * 1000, i % 2 ? { status: 304, body: 'not-modified', bytes: 0 } : {}));
    log.record(fetch(99_000, { status: 404, body: 'none' }));
    expect(log.record(fetch(1, { export: 'secret.xml' }))).toBe(false);
    expect(log.record(fetch(1, { monitor: 'nobody' }))).toBe(false);
    // Another path is kept only for a monitor (a wrong URL given to it), never for anyone else.
    expect(log.record(fetch(1, { export: 'other', path: '/x', status: 404 }))).toBe(true);
    const { monitor: _, ...anonymous } = fetch(1, { export: 'other', path: '/x' });
    expect(log.record(anonymous)).toBe(false);
    const tally = log.tally('bestchange', 'parserfile.xml')!;
    expect(tally).toMatchObject({ fetches: RING_SIZE + 6, full: 13, notModified: 12, failed: 1, lastAt: 99_000 });
    expect(tally.lastFailure).toEqual({ at: 99_000, status: 404, why: 'HTTP 404' });
    expect(tally.recent).toHaveLength(RING_SIZE);
    // Read back, less what the config no longer has.
    const again = new FetchLog(['reffile.xml', 'parserfile.xml'], ['bestchange']);
    expect(again.restore(JSON.parse(JSON.stringify(log)))).toBe(0);
    expect(again.tally('bestchange', 'parserfile.xml')).toEqual(tally);
    expect(new FetchLog(['parserfile.xml'], []).restore(JSON.parse(JSON.stringify(log)))).toBe(2);
    expect(new FetchLog([], []).restore([{ export: 1 }, 'x', null])).toBe(3);
  });

  it('says which answers are no rate file', () => {
    expect(fetchProblem({ export: 'a.xml', status: 200, body: 'full', bytes: 10 })).toBeUndefined();
    expect(fetchProblem({ export: 'a.xml', status: 304, body: 'not-modified', bytes: 0 })).toBeUndefined();
    expect(fetchProblem({ export: 'a.xml', status: 200, body: 'none', bytes: 0 })).toBeUndefined();
    expect(fetchProblem({ export: 'a.xml', status: 200, body: 'full', bytes: 0 })).toBe('an empty body');
    expect(fetchProblem({ export: 'a.xml', status: 503, body: 'none', bytes: 0 })).toBe('HTTP 503');
    expect(fetchProblem({ export: 'other', status: 200, body: 'full', bytes: 9 })).toBe('HTTP 200, not an export');
  });
});

describe('monitor states', () => {
  const monitors = normalizeMonitors({
    bestchange: { agent: 'BestChangeBot', window: 600_000 },
    sumo: { agent: 'Sumo', window: 600_000, exports: ['reffile.xml'] },
  });
  const since = Date.parse('2026-11-26T10:00:00Z');

  it('waits for a window, then is silent; a fetch makes it ok; an error answer makes it failing until a good one', () => {
    const log = new FetchLog(['parserfile.xml', 'reffile.xml'], ['bestchange', 'sumo']);
    const states = (at: number) => watchMonitors(monitors, log, since, at).map((w) => `${w.monitor}:${w.state}`);
    expect(states(since + 599_000)).toEqual(['bestchange:waiting', 'sumo:waiting']);
    expect(states(since + 601_000)).toEqual(['bestchange:silent', 'sumo:silent']);
    expect(monitorProblems(watchMonitors(monitors, log, since, since + 601_000), since, since + 601_000)).toEqual([
      {
        key: 'monitor-silent:bestchange',
        level: 'degraded',
        text: 'monitor bestchange has not fetched any export in the 10 min since ratefile began watching (window 10 min)',
      },
      expect.objectContaining({ key: 'monitor-silent:sumo:reffile.xml' }),
    ]);
    log.record(fetch(since + 700_000));
    // sumo reads reffile.xml: a fetch of parserfile.xml does not count for it.
    log.record(fetch(since + 700_000, { monitor: 'sumo' }));
    expect(states(since + 710_000)).toEqual(['bestchange:ok', 'sumo:silent']);
    log.record(fetch(since + 720_000, { status: 502, body: 'none' }));
    const failing = watchMonitors(monitors, log, since, since + 730_000);
    expect(failing[0]).toMatchObject({
      state: 'failing',
      failure: { status: 502, why: 'HTTP 502', export: 'parserfile.xml' },
    });
    expect(monitorProblems(failing, since, since + 730_000).map((p) => p.key)).toEqual([
      'monitor-answer:bestchange',
      'monitor-silent:sumo:reffile.xml',
    ]);
    log.record(fetch(since + 740_000, { status: 304, body: 'not-modified', bytes: 0 }));
    expect(states(since + 745_000)[0]).toBe('bestchange:ok');
    expect(states(since + 740_000 + 600_001)[0]).toBe('bestchange:silent');
  });
});

describe('the `monitors:` block', () => {
  it('says what is wrong with each entry', async () => {
    const project = await makeProject({
      'ratefile.config.yaml': `${sampleConfig}monitors:
  other: { agent: x }
  nopattern: { window: 10m }
  badnet: { address: [10.0.0.0/33, "1.2.3.4"] }
  badregex: { agent: "/(/" }
  shortwindow: { agent: x, window: 10ms }
`,
    });
    projects.push(project);
    const error = (await loadConfig(project.configPath).catch((e: unknown) => e)) as RatefileError;
    expect(error).toBeInstanceOf(RatefileError);
    const text = error.details.join('\n');
    expect(text).toMatch(/monitors\.other.*"other" names the fetches no monitor matched/);
    expect(text).toMatch(/monitors\.nopattern.*expected `agent`, `address` or both/);
    expect(text).toMatch(/monitors\.badnet\.address.*expected an IP address or a CIDR network.*10\.0\.0\.0\/33/);
    expect(text).toMatch(/monitors\.badregex\.agent.*regular expression between slashes/);
    expect(text).toMatch(/monitors\.shortwindow\.window.*1s or more/);
  });

  it('normalizes addresses to a list and resolves accessLog against the config folder', async () => {
    const project = await makeProject({
      'ratefile.config.yaml': `${sampleConfig}accessLog: logs/access.log\nmonitors:\n  sumo: { address: 46.4.58.77 }\n`,
    });
    projects.push(project);
    const config = await loadConfig(project.configPath);
    expect(config.monitors).toEqual([{ name: 'sumo', addresses: ['46.4.58.77'], windowMs: 600_000 }]);
    expect(config.accessLog).toBe(join(project.dir, 'logs', 'access.log'));
  });
});

describe('the access log read incrementally', () => {
  async function logFile(text: string): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'ratefile-log-'));
    folders.push(dir);
    const path = join(dir, 'access.log');
    await writeFile(path, text);
    return path;
  }
  const collect = async (reader: AccessLogReader) => {
    const got: string[] = [];
    await reader.read((line) => got.push(line));
    return got;
  };

  it('reads complete lines once, a line being written when it is complete, and goes on from a saved position', async () => {
    const path = await logFile('a\nb\npar');
    const reader = new AccessLogReader(path);
    expect(await collect(reader)).toEqual(['a', 'b']);
    expect(await collect(reader)).toEqual([]);
    await appendFile(path, 'tial\nc\n');
    expect(await collect(reader)).toEqual(['partial', 'c']);
    const position = reader.position()!;
    await reader.close();
    await appendFile(path, 'd\n');
    const again = new AccessLogReader(path, position);
    expect(await collect(again)).toEqual(['d']);
    await again.close();
  });

  it('finishes a rotated log through its descriptor, then reads the new one from its start; a truncated one from its start', async () => {
    const path = await logFile('a\n');
    const reader = new AccessLogReader(path);
    expect(await collect(reader)).toEqual(['a']);
    await rename(path, `${path}.1`);
    await appendFile(`${path}.1`, 'b\n');
    await writeFile(path, 'c\n');
    expect(await collect(reader)).toEqual(['b', 'c']);
    await truncate(path, 0);
    expect(await collect(reader)).toEqual([]);
    await appendFile(path, 'd\n');
    expect(await collect(reader)).toEqual(['d']);
    // Truncated and written past the offset between two reads: no newline where the last line ended.
    await truncate(path, 0);
    await appendFile(path, 'eeeee\n');
    expect(await collect(reader)).toEqual(['eeeee']);
    await reader.close();
  });

  it('drops a line longer than MAX_LINE whole, and reads on after it', async () => {
    const path = await logFile(`a\n${'x'.repeat(MAX_LINE + 10)}`);
    const reader = new AccessLogReader(path);
    expect(await collect(reader)).toEqual(['a']);
    await appendFile(path, `${'x'.repeat(70_000)}\nb\n`);
    expect(await collect(reader)).toEqual(['b']);
    expect(reader.overlong).toBe(1);
    await reader.close();
  });

  it('starts a log never read before near its end, at a whole line', async () => {
    const filler = `${'f'.repeat(99)}\n`.repeat(12_000);
    const path = await logFile(`${filler}last\n`);
    const reader = new AccessLogReader(path);
    const got = await collect(reader);
    expect(got.at(-1)).toBe('last');
    expect(got.length).toBeLessThan(12_000);
    expect(got.every((line) => line === 'f'.repeat(99) || line === 'last')).toBe(true);
    await reader.close();
  });

  it('throws while the log is missing', async () => {
    const reader = new AccessLogReader(join(tmpdir(), 'ratefile-no-such-dir', 'access.log'));
    await expect(reader.read(() => undefined)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('the dashboard section', () => {
  it("escapes what clients send: a user agent is anyone's text", async () => {
    const { readersSection } = await import('../../../../src/service/dashboard/readers.js');
    const html = readersSection(
      {
        since: '2026-11-26T10:00:00.000Z',
        sources: ['server'],
        monitors: [
          {
            name: 'bestchange',
            state: 'failing',
            windowSeconds: 600,
            failure: { at: '2026-11-26T10:01:00.000Z', status: 404, why: 'HTTP 404', export: 'parserfile.xml' },
          },
        ],
        fetches: [
          {
            monitor: 'bestchange',
            export: 'parserfile.xml',
            fetches: 3,
            notModifiedShare: 2 / 3,
            failed: 1,
            lastAt: '2026-11-26T10:01:00.000Z',
            lastFailure: { at: '2026-11-26T10:01:00.000Z', status: 404, why: 'HTTP 404' },
            agent: '<script>alert(1)</script>',
          },
        ],
      },
      '2026-11-26T10:02:00.000Z',
    );
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('NOT GETTING THE FILE');
    expect(html).toContain('HTTP 404 for parserfile.xml, 60 s ago');
    expect(html).toMatch(/<div>67%<\/div>/);
  });
});
