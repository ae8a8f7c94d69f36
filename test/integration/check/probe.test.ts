// `ratefile probe URL` against a real loopback server that serves each thing a monitor gets instead of a rate file
// (test/fixtures/probe, see its README): each is named, ETag/304 behaviour is reported, --json has the same, the exit code
// says whether every fetch was readable, and nothing hangs: a trickling or silent server and a body without end are cut off.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ProbeFetch, ProbeSummary } from '../../../src/pure/probe/summary.js';
import { freePort } from '../../support/ports.js';
import { assertBuilt, binPath, childEnv, repoRoot } from '../../support/process.js';
import { projectsPerTest } from '../../support/project.js';
import { servicesPerTest } from '../../support/service.js';
import { runRatefile } from '../../support/run-cli.js';

const fixture = (path: string) => readFileSync(join(repoRoot, 'test', 'fixtures', path));
const goodXml = fixture('exports/real/CoinDrop.xml');
const lastModified = 'Thu, 26 Nov 2026 00:00:00 GMT';
const rateFile = (out: number) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<rates>\n<item>\n<from>BTC</from>\n<to>SBERRUB</to>\n<in>1</in>\n<out>${out}</out>\n<amount>500000</amount>\n<minamount>0.001</minamount>\n<maxamount>1</maxamount>\n</item>\n</rates>\n`;

let server: Server;
let base: string;
const requests: { path: string; headers: IncomingHttpHeaders }[] = [];
const counts = new Map<string, number>();
const sockets = new Set<Socket>();

function send(response: ServerResponse, status: number, type: string, body: string | Buffer, headers = {}) {
  response.writeHead(status, { 'content-type': type, ...headers }).end(body);
}

/** Writes a chunk and then the next when the socket drains, until the client goes away: a body without end. */
function endless(response: ServerResponse) {
  response.writeHead(200, { 'content-type': 'application/xml' });
  const chunk = Buffer.alloc(64 * 1024, ' ');
  const write = () => {
    while (!response.destroyed && response.write(chunk));
  };
  response.on('drain', write);
  write();
}

const routes: Record<string, (headers: IncomingHttpHeaders, response: ServerResponse, turn: number) => void> = {
  '/good.xml': (headers, response) => {
    const validators = { etag: '"v1"', 'last-modified': lastModified };
    if (headers['if-none-match'] === '"v1"' || headers['if-modified-since'] === lastModified)
      return response.writeHead(304, validators).end();
    const gzip = /gzip/.test(String(headers['accept-encoding']));
    send(response, 200, 'application/xml', gzip ? gzipSync(goodXml) : goodXml, {
      ...validators,
      ...(gzip ? { 'content-encoding': 'gzip' } : {}),
    });
  },
  '/cloudflare': (_, response) =>
    send(response, 403, 'text/html; charset=UTF-8', fixture('probe/cloudflare-challenge.html'), {
      'cf-mitigated': 'challenge',
      server: 'cloudflare',
      'cf-ray': '8f0000000000a1b2-FRA',
    }),
  '/antibot': (_, response) =>
    send(response, 200, 'text/html', fixture('probe/antibot-cookie.html'), { 'set-cookie': '__test=1; path=/' }),
  '/empty': (_, response) => send(response, 200, 'application/xml', ''),
  // Compressed by its header only: no byte to decompress is an empty body, and a 204 has no body at all.
  '/gzip-empty': (_, response) => send(response, 200, 'application/xml', '', { 'content-encoding': 'gzip' }),
  '/no-content': (_, response) => response.writeHead(204, { 'content-encoding': 'gzip' }).end(),
  '/html': (_, response) => send(response, 200, 'text/html; charset=utf-8', fixture('probe/site-page.html')),
  '/maintenance': (_, response) => send(response, 503, 'text/html', fixture('probe/wordpress-maintenance.html')),
  '/premium-maintenance': (_, response) => send(response, 200, 'text/xml', fixture('probe/premium-maintenance.xml')),
  '/redirect': (_, response) => response.writeHead(302, { location: '/good.xml' }).end(),
  '/loop': (_, response) => response.writeHead(302, { location: '/loop' }).end(),
  '/redirect-page': (_, response) => send(response, 200, 'text/html', fixture('probe/redirect-page.html')),
  '/500': (_, response) => send(response, 500, 'text/plain', 'Internal Server Error'),
  '/trickle': (_, response) => {
    response.writeHead(200, { 'content-type': 'application/xml' });
    response.write('<?xml version="1.0" encoding="UTF-8"?>\n<rates>\n');
    const timer = setInterval(() => response.write(' '), 20);
    response.on('close', () => clearInterval(timer));
  },
  '/silent': () => {},
  '/huge': (_, response) => endless(response),
  // 5 MB of white space inside <rates>, a few kilobytes on the wire.
  '/bomb': (_, response) =>
    send(response, 200, 'application/xml', gzipSync(`<rates>${' '.repeat(5_000_000)}</rates>`), {
      'content-encoding': 'gzip',
    }),
  '/flaky': (headers, response, turn) =>
    turn % 2 === 1 ? routes['/good.xml']!(headers, response, turn) : routes['/cloudflare']!(headers, response, turn),
  // The first answer comes after 4 s, longer than go-para's 3.6 s (and shorter than the probe's own 20 s); later ones at once.
  '/slow-first': (_, response, turn) => {
    const answer = () => send(response, 200, 'application/xml', rateFile(100));
    if (turn === 1) setTimeout(answer, 4000);
    else answer();
  },
  '/changing': (_, response, turn) => send(response, 200, 'application/xml', rateFile(100 + Math.min(turn, 3))),
  '/json': (_, response) => send(response, 200, 'application/json', fixture('formats/rates.json')),
  // The file itself, sent as a web page (a rewrite to a script, a wrong `types` block): MoneySwap's robot refuses it.
  '/as-html.xml': (_, response) => send(response, 200, 'text/html; charset=utf-8', goodXml),
};

beforeAll(async () => {
  server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    requests.push({ path, headers: request.headers });
    const turn = (counts.get(path) ?? 0) + 1;
    counts.set(path, turn);
    const route = routes[path];
    if (route) route(request.headers, response, turn);
    else send(response, 404, 'text/plain', 'no such route');
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  requests.length = 0;
  counts.clear();
});

// Run from the system's temporary folder, where no config is: beside one, probe compares the copy with its exports.
const probe = (args: readonly string[]) => runRatefile(['probe', ...args], tmpdir());

interface ProbeJson {
  summary: ProbeSummary;
  fetches: ProbeFetch[];
}

async function probeJson(args: readonly string[]): Promise<{ code: number; report: ProbeJson }> {
  const outcome = await probe([...args, '--json']);
  return { code: outcome.code, report: JSON.parse(outcome.stdout) as ProbeJson };
}

describe('a good export', () => {
  it('20 fetches by default, all readable, the conditional re-fetches answered 304: exit 0 and a report for support', async () => {
    const { code, stdout, stderr } = await probe([`${base}/good.xml`]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain(
      'Result: 20/20 sequential fetches were a readable rate file (classic XML, 7 items, no errors in `ratefile check`): no timeouts, no empty responses, no challenge or error pages.',
    );
    expect(stdout).toContain(`Validators: ETag "v1", Last-Modified ${lastModified}.`);
    expect(stdout).toContain('If-None-Match: "v1" → 304 Not Modified');
    expect(stdout).toContain(`If-Modified-Since: ${lastModified} → 304 Not Modified`);
    expect(stdout).toContain('Rates: the same in all 20 readable fetches.');
    expect(stdout).toMatch(/Size: 1491 bytes \(\d+ on the wire, compressed\)/);
    expect(stdout).toMatch(/\n {3}1 {2}200 {2}application\/xml +\d+ ms {2}1491 B \(\d+ gzip\) +classic XML, 7 items/);
    expect(stdout).toContain('Every fetch was readable.');
  });

  it('is asked as a plain robot asks: its User-Agent, gzip, no cookies, validators only on the conditional fetches', async () => {
    await probe([`${base}/good.xml`, '-n', '2']);
    expect(requests.map((request) => request.path)).toEqual(Array(4).fill('/good.xml'));
    for (const { headers } of requests) {
      expect(headers['user-agent']).toMatch(
        /^ratefile\/\d+\.\d+\.\d+ \(a monitor-like check of an exchange-rates export file\)$/,
      );
      expect(headers['accept-encoding']).toBe('gzip');
      expect(headers.cookie).toBeUndefined();
    }
    expect(requests.map(({ headers }) => [headers['if-none-match'], headers['if-modified-since']])).toEqual([
      [undefined, undefined],
      [undefined, undefined],
      ['"v1"', undefined],
      [undefined, lastModified],
    ]);
    await probe([`${base}/good.xml`, '-n', '1', '--user-agent', 'Monitor-Robot/2.0']);
    expect(requests.at(-1)?.headers['user-agent']).toBe('Monitor-Robot/2.0');
  });

  it('--json: the summary and every fetch as data', async () => {
    const { code, report } = await probeJson([`${base}/good.xml`, '-n', '2']);
    expect(code).toBe(0);
    expect(report.summary).toMatchObject({
      url: `${base}/good.xml`,
      fetches: 2,
      readable: 2,
      ok: true,
      failures: [],
      formats: ['classic'],
      items: { min: 7, median: 7, max: 7 },
      statuses: { '200': 2 },
      compressed: true,
      validators: {
        etag: '"v1"',
        lastModified,
        conditional: [
          { header: 'If-None-Match', value: '"v1"', status: 304, outcome: 'not-modified' },
          { header: 'If-Modified-Since', value: lastModified, status: 304, outcome: 'not-modified' },
        ],
      },
      rates: { distinct: 1, bodies: 1, changedAt: [] },
    });
    expect(Object.keys(report.summary.timeMs ?? {})).toEqual(['min', 'median', 'max']);
    expect(report.fetches).toHaveLength(4);
    expect(report.fetches[0]).toMatchObject({
      index: 1,
      readable: true,
      format: 'classic',
      items: 7,
      errors: 0,
      status: 200,
      contentType: 'application/xml',
      contentEncoding: 'gzip',
      bytes: 1491,
      etag: '"v1"',
      setsCookie: false,
      redirects: [],
    });
    expect(report.fetches[0]!.wireBytes).toBeGreaterThan(0);
    expect(report.fetches[0]!.wireBytes).toBeLessThan(1491);
    expect(report.fetches[2]).toMatchObject({ index: 3, conditional: { header: 'If-None-Match' }, notModified: true });
  });

  it('a redirect is followed and reported; with --max-redirects 0 it is the failure', async () => {
    const followed = await probe([`${base}/redirect`, '-n', '2']);
    expect(followed.code).toBe(0);
    expect(followed.stdout).toContain(`Redirects: 2 of 2 fetches were redirected (302 → "${base}/good.xml")`);
    const { code, report } = await probeJson([`${base}/redirect`, '-n', '2', '--max-redirects', '0']);
    expect(code).toBe(1);
    expect(report.summary.failures).toEqual([
      { kind: 'redirect', name: 'redirect', count: 2, fetches: [1, 2], detail: 'HTTP 302 to /good.xml, not followed' },
    ]);
  });

  it('--format names a rate file of another format', async () => {
    const { code, report } = await probeJson([`${base}/json`, '-n', '1', '--format', 'classic']);
    expect(code).toBe(1);
    expect(report.summary.failures[0]).toMatchObject({ kind: 'wrong-format', detail: 'JSON, not classic XML' });
    expect((await probe([`${base}/json`, '-n', '1', '--format', 'json'])).code).toBe(0);
  });
});

describe("ratefile's own server", () => {
  const project = projectsPerTest();
  const service = servicesPerTest();

  // It answers a conditional request with 304 and the Content-Encoding of the copy it would send: a 304 has no body,
  // so there is nothing to decompress (issue 33, item 7: both re-fetches were "does not decompress", exit 1).
  it('passes: 5 gzip fetches and both conditional re-fetches answered 304, exit 0', async () => {
    const { base } = await service(await project());
    const text = await probe([`${base}parserfile.xml`, '-n', '5']);
    expect(text.stdout).toMatch(/\n {3}6 {2}304 {2}If-None-Match +\d+ ms {2}0 B +not modified\n/);
    expect(text.stdout).toContain('Every fetch was readable.');
    expect(text.code).toBe(0);
    const { code, report } = await probeJson([`${base}parserfile.xml`, '-n', '5']);
    expect(report.summary.failures).toEqual([]);
    expect(code).toBe(0);
    expect(report.fetches.map((fetch) => [fetch.status, fetch.contentEncoding])).toEqual([
      ...Array(5).fill([200, 'gzip']),
      [304, 'gzip'],
      [304, 'gzip'],
    ]);
    expect(report.summary.validators.conditional.map((outcome) => outcome.outcome)).toEqual([
      'not-modified',
      'not-modified',
    ]);
  });
});

describe('each failure kind is named', () => {
  it.each([
    ['/cloudflare', [], 'cloudflare-challenge', 'HTTP 403, cf-mitigated: challenge'],
    ['/antibot', [], 'antibot-page', 'aes.js'],
    ['/empty', [], 'empty-body', '0 bytes'],
    ['/gzip-empty', [], 'empty-body', '0 bytes'],
    ['/no-content', [], 'http-status', 'HTTP 204'],
    ['/html', [], 'html', '<title>'],
    ['/maintenance', [], 'engine-error', 'HTTP 503'],
    ['/premium-maintenance', [], 'engine-error', '<error>'],
    ['/redirect-page', [], 'redirect-page', 'meta refresh to https://rates.example.com/new/export.xml'],
    ['/loop', [], 'redirect', 'more than 5 redirects'],
    ['/500', [], 'http-status', 'HTTP 500'],
    ['/trickle', ['--timeout', '0.3'], 'timeout', 'no complete answer within 0.3 s'],
    ['/silent', ['--timeout', '0.3'], 'timeout', 'no complete answer within 0.3 s'],
    ['/huge', ['--max-bytes', '100000'], 'too-large', 'more than 100000 bytes came'],
    ['/bomb', ['--max-bytes', '100000'], 'too-large', 'more than 100000 bytes came'],
    ['/as-html.xml', [], 'refused-type', 'Content-Type text/html; charset=utf-8: MoneySwap refuses it'],
  ])('%s %j → %s', async (path, args, kind, detail) => {
    const { code, report } = await probeJson([`${base}${path}`, '-n', '2', ...args]);
    expect(code).toBe(1);
    expect(report.summary).toMatchObject({ fetches: 2, readable: 0, ok: false });
    expect(report.summary.failures).toHaveLength(1);
    expect(report.summary.failures[0]).toMatchObject({ kind, count: 2, fetches: [1, 2] });
    expect(report.summary.failures[0]!.detail).toContain(detail);
  });

  it('a TLS error: https to a server that speaks plain HTTP', async () => {
    const { code, report } = await probeJson([`${base.replace('http:', 'https:')}/good.xml`, '-n', '1']);
    expect(code).toBe(1);
    expect(report.summary.failures[0]).toMatchObject({ kind: 'tls-error', count: 1 });
  });

  it('a connection error: nothing listens on the port', async () => {
    const port = await freePort();
    const { code, report } = await probeJson([`http://127.0.0.1:${port}/rates.xml`, '-n', '1']);
    expect(code).toBe(1);
    expect(report.summary.failures[0]).toMatchObject({
      kind: 'connection-error',
      detail: `connection refused (127.0.0.1:${port})`,
    });
  });

  it('the anti-bot page sets a cookie: noted, and never sent back', async () => {
    const { report } = await probeJson([`${base}/antibot`, '-n', '2']);
    expect(report.summary.notes).toContain(
      'the server sets cookies; monitors send none back, so nothing may depend on one',
    );
    expect(requests.map((request) => request.headers.cookie)).toEqual([undefined, undefined]);
  });

  it('a flaky export: the text report counts each kind, lists its fetches and says what to do', async () => {
    const { code, stdout } = await probe([`${base}/flaky`, '-n', '4']);
    expect(code).toBe(1);
    // The conditional re-fetches (5: If-None-Match, 6: If-Modified-Since) meet the same flakiness.
    expect(stdout).toContain(
      'Result: 2/4 sequential fetches were a readable rate file; 2 were not, nor 1 of the 2 conditional re-fetches:',
    );
    expect(stdout).toContain(
      '  3 × Cloudflare challenge ("Just a moment...") (cloudflare-challenge), fetches 2, 4, 6: HTTP 403, cf-mitigated: challenge',
    );
    expect(stdout).toContain("→ a monitor's robot runs no JavaScript");
    expect(stdout).toMatch(/\n {3}2 {2}403 {2}text\/html .* FAIL Cloudflare challenge/);
    expect(stdout).toContain('Not every fetch was readable (exit 1).');
  });

  it('rates that change between fetches are reported with the fetches where they changed', async () => {
    const { code, stdout } = await probe([`${base}/changing`, '-n', '4']);
    expect(code).toBe(0);
    expect(stdout).toContain('Rates: 3 different sets; they changed at fetches 2, 3 (expected while rates move).');
    expect(stdout).toContain('Note: no ETag or Last-Modified');
  });

  // Issue 33, item 8: an answer after 8 s was "Every fetch was readable", and the hint said monitors wait "about 20 s".
  it("an answer slower than a monitor's timeout is not passed: the monitor that gives up is named, exit 1", async () => {
    const { code, stdout } = await probe([`${base}/slow-first`, '-n', '2']);
    expect(code).toBe(1);
    expect(stdout).toContain(
      "each judged against the monitors' timeouts: MoneySwap gives up after 5 s, go-para after 3.6 s",
    );
    expect(stdout).toMatch(
      /\n {3}1 {2}200 .* FAIL slower than a monitor's timeout: took \d+ ms: (MoneySwap gives up after 5 s, )?go-para/,
    );
    expect(stdout).toContain('Result: 1/2 sequential fetches were a readable rate file; 1 was not:');
    expect(stdout).toMatch(/ {2}1 × slower than a monitor's timeout \(too-slow\), fetch 1: took \d+ ms: /);
    expect(stdout).toContain("the whole file, body included, must come within every monitor's timeout");
    expect(stdout).toMatch(
      /\nMonitors' timeouts: MoneySwap gives up after 5 s, go-para after 3\.6 s: 1 of 2 fetches took longer \((MoneySwap: fetch 1; )?go-para: fetch 1\)\.\n/,
    );
    expect(stdout).not.toContain('about 20 s');
    expect(stdout).toContain("Every fetch was a readable rate file, but not within every monitor's timeout (exit 1).");
  });

  it('the overall deadline ends the probe: the fetch under way and those after it are not made', async () => {
    const { code, report } = await probeJson([`${base}/trickle`, '-n', '3', '--timeout', '60', '--deadline', '0.5']);
    expect(code).toBe(1);
    expect(report.summary.failures).toEqual([
      expect.objectContaining({ kind: 'not-made', count: 3, fetches: [1, 2, 3] }),
    ]);
  });
});

describe('the command line', () => {
  it.each([
    [['ftp://127.0.0.1/rates.xml'], 'expected an http or https URL'],
    [['not a url'], 'is not a URL'],
    [['http://127.0.0.1/x', '-n', '0'], 'expected a whole number 1..1000'],
    [['http://127.0.0.1/x', '--timeout', '0'], 'more than 0'],
    [['http://127.0.0.1/x', '--format', 'yaml'], 'Allowed choices are classic, eref, json'],
  ])('%j is a usage error (exit 2)', async (args, message) => {
    const { code, stderr } = await probe(args);
    expect(code).toBe(2);
    expect(stderr).toContain(message);
  });

  it('a URL with credentials is shown redacted, in text and JSON', async () => {
    const url = `${base.replace('//', '//reader:s3cret-Passw0rd@')}/good.xml`;
    const text = await probe([url, '-n', '1']);
    const json = await probe([url, '-n', '1', '--json']);
    expect(text.code).toBe(0);
    for (const output of [text.stdout, json.stdout]) {
      expect(output).not.toContain('s3cret-Passw0rd');
      expect(output).toContain('reader:***@');
    }
  });

  it('the real binary: exit 0 for a readable export, 1 for an empty body', async () => {
    assertBuilt();
    const run = (path: string) =>
      promisify(execFile)(process.execPath, [binPath, 'probe', `${base}${path}`, '-n', '2'], { env: childEnv() }).then(
        () => 0,
        (error: { code?: number }) => error.code ?? -1,
      );
    expect(await run('/good.xml')).toBe(0);
    expect(await run('/empty')).toBe(1);
  });
});
