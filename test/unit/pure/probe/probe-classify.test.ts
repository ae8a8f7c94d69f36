// ratefile probe's judgement of one fetch (src/pure/probe/classify.ts, pages.ts, rates.ts): each kind of body a monitor
// gets instead of a rate file is named, from the fixtures in test/fixtures/probe (see its README for their origin).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  contentTypeRules,
  formatOf,
  judgeFetch,
  monitorTimeouts,
  networkFailure,
  type Fetched,
  type MonitorTimeout,
} from '../../../../src/pure/probe/classify.js';
import { ratesOf } from '../../../../src/pure/probe/rates.js';
import { formatSummary } from '../../../../src/pure/probe/report.js';
import { summarise, describeFetch } from '../../../../src/pure/probe/summary.js';
import { repoRoot } from '../../../support/process.js';
import { loadProfiles } from '../../../../src/io/monitors/load.js';

const fixture = (path: string) => readFileSync(join(repoRoot, 'test', 'fixtures', path));
const answer = (body: string | Buffer, status = 200, headers: Record<string, string> = {}): Fetched => ({
  ms: 5,
  redirects: [],
  status,
  headers: { 'content-type': 'text/html', ...headers },
  body: typeof body === 'string' ? Buffer.from(body) : body,
  wireBytes: body.length,
});

describe('a body that is not a rate file is named', () => {
  it.each([
    ['probe/cloudflare-challenge.html', 403, { 'cf-mitigated': 'challenge' }, 'cloudflare-challenge', 'cf-mitigated'],
    ['probe/cloudflare-challenge.html', 200, {}, 'cloudflare-challenge', 'Just a moment'],
    ['probe/cloudflare-challenge.html', 503, {}, 'cloudflare-challenge', 'HTTP 503'],
    ['probe/antibot-cookie.html', 200, {}, 'antibot-page', 'aes.js'],
    ['probe/premium-maintenance.xml', 200, {}, 'engine-error', '<error>'],
    ['probe/wordpress-maintenance.html', 503, {}, 'engine-error', 'WordPress'],
    ['probe/redirect-page.html', 200, {}, 'redirect-page', 'meta refresh to https://rates.example.com/new/export.xml'],
    ['probe/site-page.html', 200, {}, 'html', 'Example Exchange'],
    ['probe/site-page.html', 404, {}, 'http-status', 'HTTP 404'],
  ] as const)('%s with HTTP %i → %s', (file, status, headers, kind, detail) => {
    const verdict = judgeFetch(answer(fixture(file), status, headers));
    expect(verdict.readable).toBe(false);
    expect(verdict.failure?.kind).toBe(kind);
    expect(verdict.failure?.detail).toContain(detail);
  });

  it('a script that sets a cookie and reloads is an anti-bot page, one that only moves on is a redirect page', () => {
    const cookie = '<html><script>document.cookie="check=1; path=/"; location.reload();</script></html>';
    expect(judgeFetch(answer(cookie)).failure?.kind).toBe('antibot-page');
    const moves = '<html><script>window.location = "/new/export.xml";</script></html>';
    expect(judgeFetch(answer(moves)).failure).toEqual({
      kind: 'redirect-page',
      detail: 'a script sends the browser to /new/export.xml',
    });
  });

  it.each([
    [
      '<html><head><title>Технические работы</title></head><body>Скоро вернёмся</body></html>',
      'engine-error',
      'notice',
    ],
    ['<html><body><h1>Сайт временно недоступен</h1></body></html>', 'engine-error', 'notice'],
    [
      '<br />\n<b>Fatal error</b>:  Uncaught Error: Call to undefined function in /var/www/x.php:12',
      'engine-error',
      'PHP',
    ],
    [
      '<html><head><title>DDoS-Guard</title></head><body><script src="/.well-known/ddos-guard/js-challenge/index.js"></script></body></html>',
      'antibot-page',
      'DDoS-Guard',
    ],
    ['<script>document.cookie="a=1"; window.location.href="/export.xml";</script>', 'antibot-page', 'cookie'],
  ])('%j → %s', (body, kind, detail) => {
    expect(judgeFetch(answer(body)).failure).toEqual({ kind, detail: expect.stringContaining(detail) });
  });

  it('a long page that mentions maintenance in passing is an HTML page, not a maintenance notice', () => {
    const page = `<!DOCTYPE html><html><head><title>Example Exchange</title></head><body>${'<p>Обмен валют.</p>'.repeat(600)}<footer><a href="/maintenance-schedule">Scheduled maintenance</a></footer></body></html>`;
    expect(judgeFetch(answer(page)).failure).toEqual({ kind: 'html', detail: '<title>Example Exchange</title>' });
  });

  it.each([
    ['', 'empty-body', '0 bytes'],
    ['  \n\t', 'empty-body', '4 bytes of white space'],
    ['Internal error', 'not-a-rate-file', 'starts with "Internal error"'],
    ['{"error":"rate limit"}', 'not-a-rate-file', 'starts with'],
    ['<?xml version="1.0"?><feed/>', 'not-a-rate-file', 'starts with'],
  ])('%j → %s', (body, kind, detail) => {
    expect(judgeFetch(answer(body)).failure).toEqual({ kind, detail: expect.stringContaining(detail) });
  });

  it('a 3xx that was not followed is a redirect; a 500 a non-200 status', () => {
    expect(judgeFetch(answer('', 301, { location: '/x.xml' })).failure).toEqual({
      kind: 'redirect',
      detail: 'HTTP 301 to /x.xml, not followed',
    });
    expect(judgeFetch(answer('Internal Server Error', 500)).failure).toEqual({
      kind: 'http-status',
      detail: 'HTTP 500',
    });
  });

  it('a 304 is right only for a conditional request', () => {
    expect(judgeFetch(answer('', 304), undefined, true)).toEqual({ readable: true, notModified: true });
    expect(judgeFetch(answer('', 304)).failure?.kind).toBe('http-status');
  });
});

// The shipped profiles (data/monitors/): MoneySwap's robot tests the header before it reads the body.
const rules = contentTypeRules((await loadProfiles()).values());

describe('a Content-Type a known monitor refuses', () => {
  const classic = fixture('formats/parserfile.xml');

  it('a classic file as text/html, or with no Content-Type, fails naming MoneySwap', () => {
    expect(rules.map((rule) => rule.monitor)).toEqual(['MoneySwap']);
    expect(
      judgeFetch(answer(classic, 200, { 'content-type': 'text/html; charset=utf-8' }), undefined, false, [], rules),
    ).toMatchObject({
      readable: false,
      format: 'classic',
      failure: {
        kind: 'refused-type',
        detail:
          'Content-Type text/html; charset=utf-8: MoneySwap refuses it before reading the body (/^[a-zA-Z]+/xml?/ expected)',
      },
    });
    const bare = { ...answer(classic), headers: {} };
    expect(judgeFetch(bare, undefined, false, [], rules).failure?.detail).toMatch(
      /^no Content-Type: MoneySwap refuses/,
    );
  });

  it('application/xml and text/xml pass; a JSON file (a format MoneySwap does not read) is not its business', () => {
    for (const type of ['application/xml', 'text/xml; charset=UTF-8'])
      expect(judgeFetch(answer(classic, 200, { 'content-type': type }), undefined, false, [], rules).readable).toBe(
        true,
      );
    const json = answer(fixture('formats/rates.json'), 200, { 'content-type': 'text/plain' });
    expect(judgeFetch(json, undefined, false, [], rules).failure).toBeUndefined();
  });

  it('the summary counts it as a failure and says what to serve', () => {
    const fetched = describeFetch(1, answer(classic), undefined, undefined, monitorTimeouts, undefined, rules);
    const summary = summarise('http://x/parserfile.xml', '2026-11-26T00:00:00Z', 'ua', [fetched]);
    expect(summary.ok).toBe(false);
    expect(formatSummary(summary)).toContain(
      '1 × a Content-Type a monitor refuses (refused-type), fetch 1: Content-Type text/html: MoneySwap refuses it',
    );
  });
});

describe('a rate file', () => {
  it.each([
    ['exports/real/CoinDrop.xml', 'classic', 7],
    ['formats/parserfile.xml', 'classic', 10],
    ['formats/rates-1.1.xml', 'eref', 8],
    ['formats/rates.json', 'json', 7],
  ] as const)('%s is a readable %s file', (file, format, items) => {
    const verdict = judgeFetch(answer(fixture(file), 200, { 'content-type': 'application/xml' }));
    expect(verdict).toMatchObject({ readable: true, format, items, errors: 0 });
    expect(verdict.failure).toBeUndefined();
  });

  it('with an error the checker finds is a rate file with errors, naming the first', () => {
    const verdict = judgeFetch(answer(fixture('exports/broken.xml')));
    expect(verdict.failure?.kind).toBe('invalid-rate-file');
    expect(verdict.failure?.detail).toMatch(/^\d+ error\(s\), the first: line \d+: /);
  });

  it('of another format than the monitor reads is named so', () => {
    expect(judgeFetch(answer(fixture('formats/rates.json')), 'classic').failure).toEqual({
      kind: 'wrong-format',
      detail: 'JSON, not classic XML',
    });
    expect(judgeFetch(answer(fixture('formats/rates-1.1.xml')), 'eref').readable).toBe(true);
  });

  it('format by content: JSON with exchanges, <rates> with or without EREF limits', () => {
    expect(formatOf('{"version":"1.3","exchange":{}}')).toBe('json');
    expect(formatOf('{"status":"ok"}')).toBeUndefined();
    expect(formatOf('<rates><item><from>A</from><frommin>1</frommin></item></rates>')).toBe('eref');
    expect(formatOf('<?xml version="1.0"?>\n<rates>\n<item><from>A</from></item></rates>')).toBe('classic');
    expect(formatOf('<html><rates/></html>')).toBeUndefined();
  });

  it('rates: the same rates in another order or with other reserves are the same; another rate is not', () => {
    const item = (to: string, out: string, amount: string) =>
      `<item><from>BTC</from><to>${to}</to><in>1</in><out>${out}</out><amount>${amount}</amount></item>`;
    const a = `<rates>${item('SBERRUB', '100', '5')}${item('CASHRUB', '99', '5')}</rates>`;
    const b = `<rates>${item('CASHRUB', '99', '7')}${item('SBERRUB', '100', '9')}</rates>`;
    const c = `<rates>${item('CASHRUB', '99', '5')}${item('SBERRUB', '101', '5')}</rates>`;
    expect(ratesOf(a, 'classic')).toBe(ratesOf(b, 'classic'));
    expect(ratesOf(a, 'classic')).not.toBe(ratesOf(c, 'classic'));
    expect(ratesOf(fixture('formats/rates.json').toString(), 'json')).toContain('BTC SBERRUB  -8800810.33');
  });
});

describe('network errors', () => {
  it.each([
    ['ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:1', 'connection-error', 'connection refused'],
    ['ECONNRESET', 'socket hang up', 'connection-error', 'connection reset by the server'],
    ['ENOTFOUND', 'getaddrinfo ENOTFOUND x.invalid', 'connection-error', 'no such host (DNS)'],
    ['CERT_HAS_EXPIRED', 'certificate has expired', 'tls-error', 'CERT_HAS_EXPIRED: certificate has expired'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate', 'tls-error', 'self-signed'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'wrong version number', 'tls-error', 'wrong version number'],
    [
      'ECONNRESET',
      'Client network socket disconnected before secure TLS connection was established',
      'tls-error',
      'TLS',
    ],
    ['ETIMEDOUT', 'connect ETIMEDOUT', 'timeout', 'timed out'],
  ])('%s (%s) → %s', (code, message, kind, words) => {
    const failure = networkFailure(code, message);
    expect(failure.kind).toBe(kind);
    expect(failure.message).toContain(words);
  });
});

describe('the summary', () => {
  const good = (etag: string, out: string) =>
    answer(
      `<rates><item><from>BTC</from><to>SBERRUB</to><in>1</in><out>${out}</out><amount>5</amount><minamount>0.1</minamount><maxamount>1</maxamount></item></rates>`,
      200,
      { 'content-type': 'application/xml', etag },
    );

  it('counts each failure kind with its fetches, and the rates that changed', () => {
    const fetches = [
      describeFetch(1, good('"a"', '100'), undefined),
      describeFetch(2, answer(fixture('probe/cloudflare-challenge.html'), 403), undefined),
      describeFetch(3, good('"a"', '100'), undefined),
      describeFetch(4, good('"b"', '101'), undefined),
      describeFetch(5, answer(''), undefined),
      describeFetch(6, answer(fixture('probe/cloudflare-challenge.html'), 403), undefined),
    ];
    const summary = summarise('http://x/', '2026-11-26T00:00:00Z', 'ua', fetches);
    expect(summary).toMatchObject({ fetches: 6, readable: 3, ok: false });
    expect(summary.failures.map(({ kind, count, fetches }) => ({ kind, count, fetches }))).toEqual([
      { kind: 'cloudflare-challenge', count: 2, fetches: [2, 6] },
      { kind: 'empty-body', count: 1, fetches: [5] },
    ]);
    expect(summary.rates).toEqual({ files: 3, distinct: 2, bodies: 2, changedAt: [4] });
    expect(summary.validators.etag).toBe('"b"');
  });

  it('notes a rate file without items: readable, and listing nothing', () => {
    const empty = answer('<?xml version="1.0" encoding="UTF-8"?>\n<rates></rates>\n', 200, {
      'content-type': 'application/xml',
    });
    const summary = summarise('http://x/', '2026-11-26T00:00:00Z', 'ua', [describeFetch(1, empty, undefined)]);
    expect(summary).toMatchObject({ readable: 1, ok: true });
    expect(summary.notes).toContain('the file has no items: monitors read it and list nothing');
  });

  it('notes an ETag that stays while the body changes, and one that changes while the body stays', () => {
    const stale = summarise('http://x/', '2026-11-26T00:00:00Z', 'ua', [
      describeFetch(1, good('"a"', '100'), undefined),
      describeFetch(2, good('"a"', '101'), undefined),
    ]);
    expect(stale.notes.join('\n')).toContain('fetches 1 and 2 have the same ETag and different bodies');
    const restless = summarise('http://x/', '2026-11-26T00:00:00Z', 'ua', [
      describeFetch(1, good('"a"', '100'), undefined),
      describeFetch(2, good('"b"', '100'), undefined),
    ]);
    expect(restless.notes.join('\n')).toContain('2 different ETags for 1 different bodies');
  });
});

// Issue 33, item 8: an answer after 8 s passed ("Every fetch was readable"), the hint said monitors wait "about 20 s".
describe("time, judged against the monitors' own timeouts", () => {
  const rateFile = (ms: number, headers: Record<string, string> = {}): Fetched => ({
    ...answer(
      '<rates><item><from>BTC</from><to>SBERRUB</to><in>1</in><out>100</out><amount>5</amount><minamount>0.1</minamount><maxamount>1</maxamount></item></rates>',
      200,
      { 'content-type': 'application/xml', ...headers },
    ),
    ms,
  });
  const at = '2026-11-26T00:00:00Z';

  it('ships the figures read from the public parsers: MoneySwap 5 s, go-para 3.6 s, each with its source', () => {
    expect(monitorTimeouts.map(({ monitor, ms }) => [monitor, ms])).toEqual([
      ['MoneySwap', 5000],
      ['go-para', 3600],
    ]);
    expect(monitorTimeouts[0]!.source).toMatch(/^tApps-team\/moneyswap_back@[0-9a-f]{40}:.*periodic_tasks\.py/);
    expect(monitorTimeouts[1]!.source).toMatch(/^ali96343\/go-para@[0-9a-f]{40}:scan\.go/);
  });

  it.each([
    [3600, undefined, undefined],
    [3601, ['go-para'], 'took 3601 ms: go-para gives up after 3.6 s'],
    [8000, ['MoneySwap', 'go-para'], 'took 8000 ms: MoneySwap gives up after 5 s, go-para after 3.6 s'],
  ])('a rate file after %i ms: given up by %j', (ms, gaveUp, detail) => {
    const verdict = judgeFetch(rateFile(ms));
    expect(verdict.readable).toBe(gaveUp === undefined);
    expect(verdict.gaveUp).toEqual(gaveUp);
    expect(verdict.failure).toEqual(detail === undefined ? undefined : { kind: 'too-slow', detail });
    expect(verdict).toMatchObject({ format: 'classic', items: 1 });
  });

  it('a 304 that comes too late is too late too; a failure of another kind keeps its own name', () => {
    expect(judgeFetch({ ...answer('', 304), ms: 4000 }, undefined, true).failure?.kind).toBe('too-slow');
    expect(judgeFetch({ ...answer('', 500), ms: 9000 }).failure?.kind).toBe('http-status');
  });

  it('a table passed in replaces the shipped one', () => {
    const quick: MonitorTimeout[] = [{ monitor: 'Quick', ms: 100, source: 'a test' }];
    expect(judgeFetch(rateFile(150), undefined, false, quick).failure).toEqual({
      kind: 'too-slow',
      detail: 'took 150 ms: Quick gives up after 0.1 s',
    });
    expect(judgeFetch(rateFile(4000), undefined, false, quick).failure?.detail).toBe(
      'took 4000 ms: Quick gives up after 0.1 s',
    );
  });

  it('the summary names which monitor gives up on which fetches, and fails (exit 1)', () => {
    const fetches = [8000, 90, 4000, 100, 120].map((ms, i) => describeFetch(i + 1, rateFile(ms), undefined));
    const summary = summarise('http://x/', at, 'ua', fetches, { timeoutMs: 20_000 });
    expect(summary).toMatchObject({ fetches: 5, readable: 3, ok: false, formats: ['classic'] });
    expect(summary.monitors.map(({ monitor, timeoutMs, slower }) => ({ monitor, timeoutMs, slower }))).toEqual([
      { monitor: 'MoneySwap', timeoutMs: 5000, slower: [1] },
      { monitor: 'go-para', timeoutMs: 3600, slower: [1, 3] },
    ]);
    expect(summary.failures).toEqual([
      {
        kind: 'too-slow',
        name: "slower than a monitor's timeout",
        count: 2,
        fetches: [1, 3],
        detail: 'took 8000 ms: MoneySwap gives up after 5 s, go-para after 3.6 s',
      },
    ]);
    const text = formatSummary(summary);
    expect(text).toContain(
      "Monitors' timeouts: MoneySwap gives up after 5 s, go-para after 3.6 s: 2 of 5 fetches took longer (MoneySwap: fetch 1; go-para: fetches 1, 3).",
    );
    expect(text).toContain(
      "→ the whole file, body included, must come within every monitor's timeout (go-para gives up after 3.6 s)",
    );
    expect(text).toContain('Rates: the same in all 5 rate files fetched.');
    expect(text).not.toContain('about 20 s');
    expect(text).not.toContain('Every fetch was readable.');
    expect(text).toContain("Every fetch was a readable rate file, but not within every monitor's timeout (exit 1).");
  });

  it('in time everywhere: said so, exit 0; near the shortest timeout, or timed by a shorter --timeout: noted', () => {
    const fast = summarise('http://x/', at, 'ua', [describeFetch(1, rateFile(40), undefined)], { timeoutMs: 20_000 });
    expect(fast.ok).toBe(true);
    expect(formatSummary(fast)).toContain(
      "Monitors' timeouts: MoneySwap gives up after 5 s, go-para after 3.6 s: every fetch came in time.",
    );
    expect(fast.notes).toEqual([
      'no ETag or Last-Modified: monitors cannot ask for changes only, every poll downloads the whole file',
    ]);
    const near = summarise('http://x/', at, 'ua', [describeFetch(1, rateFile(3000), undefined)], { timeoutMs: 2000 });
    expect(near.ok).toBe(true);
    expect(near.notes).toContain(
      "the slowest fetch took 3000 ms, near go-para's timeout of 3.6 s: from farther away, a monitor may give up",
    );
    expect(near.notes).toContain(
      "--timeout 2 s is shorter than MoneySwap's 5 s: a fetch it cut off might still have reached MoneySwap in time",
    );
  });

  it('a slow conditional re-fetch is a failed one, and counts among the fetches a monitor gives up on', () => {
    const fetches = [
      describeFetch(1, rateFile(50, { etag: '"a"' }), undefined),
      describeFetch(2, { ...answer('', 304), ms: 4000 }, undefined, { header: 'If-None-Match', value: '"a"' }),
    ];
    const summary = summarise('http://x/', at, 'ua', fetches);
    expect(summary.ok).toBe(false);
    expect(summary.validators.conditional).toEqual([
      {
        header: 'If-None-Match',
        value: '"a"',
        status: 304,
        outcome: 'failed',
        detail: 'too-slow: took 4000 ms: go-para gives up after 3.6 s',
      },
    ]);
    expect(summary.monitors.find((timing) => timing.monitor === 'go-para')?.slower).toEqual([2]);
  });
});
