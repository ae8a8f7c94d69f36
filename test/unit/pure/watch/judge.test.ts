// The watch from outside, judged: a public copy against the versions published, with real pages from
// test/fixtures/probe/ (a Cloudflare challenge, a JavaScript cookie check) for what a monitor gets instead.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadProfiles } from '../../../../src/io/monitors/load.js';
import { contentTypeRules, type Fetched } from '../../../../src/pure/probe/classify.js';
import {
  copyAgeSeconds,
  exportEtag,
  judgeOutside,
  nextCheck,
  outsideProblems,
  rememberVersion,
} from '../../../../src/pure/watch/judge.js';
import { formatOutside } from '../../../../src/pure/watch/lines.js';

const fixture = (name: string) => readFileSync(new URL(`../../../fixtures/probe/${name}`, import.meta.url));
const file = (rate: string) =>
  Buffer.from(
    `<?xml version="1.0" encoding="UTF-8"?>\n<rates>\n<item><from>BTC</from><to>SBERRUB</to><in>1</in><out>${rate}</out><amount>5000000</amount><minamount>0.001 BTC</minamount><maxamount>5 BTC</maxamount></item>\n</rates>\n`,
  );
const [v1, v2, v3] = [file('8800000'), file('8810000'), file('8820000')];
let versions = rememberVersion([], v1, '2026-11-26T10:00:00.000Z', 10);
versions = rememberVersion(versions, v1, '2026-11-26T10:01:00.000Z', 10);
versions = rememberVersion(versions, v2, '2026-11-26T10:05:00.000Z', 10);
versions = rememberVersion(versions, v3, '2026-11-26T10:09:00.000Z', 10);
const answer = (body: Buffer, extra: Partial<Fetched> = {}): Fetched => ({
  ms: 120,
  redirects: [],
  status: 200,
  headers: { 'content-type': 'application/xml' },
  body,
  ...extra,
});

describe('rememberVersion', () => {
  it('adds new bytes only, oldest dropped past keep', () => {
    expect(versions.map((v) => v.at)).toEqual([
      '2026-11-26T10:00:00.000Z',
      '2026-11-26T10:05:00.000Z',
      '2026-11-26T10:09:00.000Z',
    ]);
    expect(rememberVersion(versions, file('1'), '2026-11-26T10:10:00.000Z', 2).map((v) => v.at)).toEqual([
      '2026-11-26T10:09:00.000Z',
      '2026-11-26T10:10:00.000Z',
    ]);
  });
});

describe('judgeOutside', () => {
  it('same: the bytes of the latest build', () => {
    expect(judgeOutside(answer(v3), versions, 3000)).toMatchObject({ state: 'same', behind: 0 });
  });

  it('older: an older build, how many builds behind and when it was built', () => {
    const judged = judgeOutside(answer(v1), versions, 3000);
    expect(judged).toMatchObject({ state: 'older', behind: 2, copyBuiltAt: '2026-11-26T10:00:00.000Z' });
    expect(judged.detail).toBe('2 builds behind, built 2026-11-26T10:00:00.000Z');
  });

  it('older by ETag when the body differs (the validator the built-in server sends, weakened by a CDN)', () => {
    const judged = judgeOutside(answer(file('1'), { headers: { etag: `W/${exportEtag(v2)}` } }), versions, 3000);
    expect(judged).toMatchObject({ state: 'older', behind: 1 });
  });

  it('older, of no build kept: a rate file, but not one published here', () => {
    expect(judgeOutside(answer(file('8700000')), versions, 3000)).toMatchObject({ state: 'older', behind: null });
  });

  it('challenge: Cloudflare\'s "Just a moment..." (403) and a JavaScript cookie check (200)', () => {
    const cloudflare = judgeOutside(
      answer(fixture('cloudflare-challenge.html'), { status: 403, headers: { 'cf-mitigated': 'challenge' } }),
      versions,
      3000,
    );
    expect(cloudflare).toMatchObject({ state: 'challenge', status: 403 });
    expect(cloudflare.detail).toContain('cf-mitigated: challenge');
    const cookie = judgeOutside(answer(fixture('antibot-cookie.html')), versions, 3000);
    expect(cookie.state).toBe('challenge');
  });

  it('error: a status, an empty body, a network failure', () => {
    expect(judgeOutside(answer(Buffer.from('busy'), { status: 503 }), versions, 3000)).toMatchObject({
      state: 'error',
      detail: 'HTTP 503',
    });
    expect(judgeOutside(answer(Buffer.alloc(0)), versions, 3000).state).toBe('error');
    const refused: Fetched = {
      ms: 2,
      redirects: [],
      error: { kind: 'connection-error', message: 'connection refused' },
    };
    expect(judgeOutside(refused, versions, 3000)).toMatchObject({ state: 'error', detail: 'connection refused' });
  });

  it('error: the latest build under a Content-Type a monitor refuses (MoneySwap, text/html), naming the monitor', async () => {
    const rules = contentTypeRules((await loadProfiles()).values());
    const html = answer(v3, { headers: { 'content-type': 'text/html' } });
    expect(judgeOutside(html, versions, 3000, rules)).toMatchObject({
      state: 'error',
      behind: 0,
      detail:
        'the latest build, but Content-Type text/html: MoneySwap refuses it before reading the body (/^[a-zA-Z]+/xml?/ expected)',
    });
    expect(judgeOutside(answer(v3), versions, 3000, rules).state).toBe('same');
    // Not one of ours: an error all the same.
    expect(
      judgeOutside(answer(file('1'), { headers: { 'content-type': 'text/html' } }), versions, 3000, rules),
    ).toMatchObject({
      state: 'error',
      detail: expect.stringContaining('MoneySwap refuses it'),
    });
  });

  it('slow: the latest build too late for the monitors, or no whole answer within the timeout', () => {
    const late = judgeOutside(answer(v3, { ms: 4200 }), versions, 3000);
    expect(late).toMatchObject({ state: 'slow', behind: 0 });
    expect(late.detail).toBe(
      'the latest build, built 2026-11-26T10:09:00.000Z, but took 4.2 s (monitors wait about 3 s)',
    );
    const cut: Fetched = {
      ms: 10_000,
      redirects: [],
      error: { kind: 'timeout', message: 'no complete answer within 10 s' },
    };
    expect(judgeOutside(cut, versions, 3000).state).toBe('slow');
  });
});

describe('since, age, alerts and the status lines', () => {
  const target = { file: 'parserfile.xml', url: 'https://rates.example.com/parserfile.xml' };
  const older = judgeOutside(answer(v2), versions, 3000);
  const first = nextCheck(undefined, older, target, '2026-11-26T10:10:00.000Z');
  const second = nextCheck(first, older, target, '2026-11-26T10:15:00.000Z');

  it('keeps since while the state holds, and alerts after alertAfter', () => {
    expect(second.since).toBe('2026-11-26T10:10:00.000Z');
    expect(outsideProblems([second], 900_000, new Date('2026-11-26T10:20:00Z'))).toEqual([]);
    expect(outsideProblems([second], 900_000, new Date('2026-11-26T10:25:00Z'))).toEqual([
      {
        key: 'outside:parserfile.xml',
        level: 'degraded',
        text: 'the public copy of parserfile.xml (https://rates.example.com/parserfile.xml) is older since 2026-11-26T10:10:00.000Z: 1 build behind, built 2026-11-26T10:05:00.000Z',
      },
    ]);
    // Older, then a challenge: still wrong since the first older fetch, so the alert is not put off.
    const challenged = nextCheck(
      second,
      judgeOutside(answer(fixture('cloudflare-challenge.html'), { status: 403 }), versions, 3000),
      target,
      '2026-11-26T10:24:00.000Z',
    );
    expect(challenged).toMatchObject({ state: 'challenge', since: '2026-11-26T10:24:00.000Z' });
    expect(outsideProblems([challenged], 900_000, new Date('2026-11-26T10:25:00Z'))).toHaveLength(1);
    const same = nextCheck(second, judgeOutside(answer(v3), versions, 3000), target, '2026-11-26T10:20:00.000Z');
    expect(same.wrongSince).toBeUndefined();
    expect(same.since).toBe('2026-11-26T10:20:00.000Z');
    expect(outsideProblems([same], 0, new Date('2026-11-26T11:00:00Z'))).toEqual([]);
  });

  it("the copy's age is from the build that made it", () => {
    expect(copyAgeSeconds(second, new Date('2026-11-26T10:15:00Z'))).toBe(600);
  });

  it('ratefile status: one line per watched export', () => {
    const text = formatOutside(
      { 'parserfile.xml': target.url, 'reffile.xml': 'https://rates.example.com/reffile.xml' },
      { 'parserfile.xml': second },
      new Date('2026-11-26T10:15:00Z'),
    );
    expect(text).toBe(
      'public copies (the watch from outside):\n' +
        '  parserfile.xml: OLDER since 5 min ago: 1 build behind, built 2026-11-26T10:05:00.000Z; the copy is 10 min old (checked 0 s ago, https://rates.example.com/parserfile.xml)\n' +
        '  reffile.xml: not fetched yet (https://rates.example.com/reffile.xml)\n',
    );
  });
});
