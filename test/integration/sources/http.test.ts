import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, httpTarget, retryAfterMs } from '../../../src/io/sources/http.js';
import { JsonBoundsError, JsonBoundsScan } from '../../../src/pure/sources/json-bounds.js';
import { parseJsonExact, parseSourceJson, priceText } from '../../../src/pure/sources/values.js';
import { xmlBoundsProblem } from '../../../src/io/sources/xml.js';
import { startReplay, type ReplayServer } from '../../support/replay.js';
import { contextFor, sourceError } from './contract.js';

describe('the HTTP helper of the sources', () => {
  let replay: ReplayServer;
  beforeAll(async () => {
    replay = await startReplay([
      { path: '/prefix/api/data', responses: [{ body: '{"ok": 1}' }] },
      { path: '/huge', responses: [{ body: Buffer.alloc(10 * 1024 * 1024 + 1, 0x20) }] },
      { path: '/slow', responses: [{ body: '{}', delayMs: 2_000 }] },
      { path: '/redirect', responses: [{ status: 302, headers: { location: '/prefix/api/data' } }] },
    ]);
  });
  afterAll(() => replay.close());

  it('keeps a path prefix in the base URL and sends an Accept header', async () => {
    const context = contextFor('mirror', {});
    const target = httpTarget('binance', 'https://api.binance.com', { baseUrl: `${replay.url}/prefix/` }, context);
    const { where, body } = await getJson(context, target, { path: '/api/data' });
    expect(where).toBe('GET /prefix/api/data');
    expect(body).toEqual({ ok: '1' });
    expect(replay.requests.at(-1)?.headers.accept).toContain('application/json');
  });

  it('refuses a RATEFILE_<TYPE>_URL that is not an http(s) URL, naming the variable', () => {
    const context = contextFor('live', { RATEFILE_OKX_URL: '127.0.0.1:9999' });
    expect(() => httpTarget('okx', 'https://www.okx.com', {}, context)).toThrow(
      'live: RATEFILE_OKX_URL: expected an http(s) URL like "http://127.0.0.1:9999", got "127.0.0.1:9999"',
    );
  });

  it('caps the size of a response', async () => {
    const context = contextFor('live', {});
    const target = httpTarget('json', replay.url, { retries: 0 }, context);
    const error = await sourceError(getJson(context, target, { path: '/huge' }), 'live', 'GET /huge');
    expect(error.message).toContain('larger than the 10485760 bytes allowed');
  });

  it('stops at once when the build is aborted, without retrying', async () => {
    const controller = new AbortController();
    const waits: number[] = [];
    const context = { ...contextFor('live', {}, waits), signal: controller.signal };
    const target = httpTarget('json', replay.url, { retries: 3 }, context);
    setTimeout(() => controller.abort(), 50);
    const error = await sourceError(getJson(context, target, { path: '/slow' }), 'live', 'GET /slow');
    expect(error.message).toBe('live: GET /slow: aborted');
    expect(waits).toEqual([]);
  });

  it('follows a redirect', async () => {
    const context = contextFor('live', {});
    const { body } = await getJson(context, httpTarget('json', replay.url, {}, context), { path: '/redirect' });
    expect(body).toEqual({ ok: '1' });
  });

  it.each([
    ['7', 7_000],
    [' 0 ', 0],
    ['Sat, 21 Nov 2026 12:01:00 GMT', 60_000],
    ['Saturday, 21-Nov-26 12:01:00 GMT', 60_000],
    ['Sat Nov 21 12:01:00 2026', 60_000],
    ['Sat, 21 Nov 2026 11:00:00 GMT', 0],
    ['999999', 999_999_000],
    ['soon', undefined],
    ['2', 2_000],
    ['-5', undefined],
    ['2026', 2_026_000],
    ['21 Nov 2026', undefined],
  ])('reads Retry-After %j', (header, expected) => {
    expect(retryAfterMs(header, Date.parse('2026-11-21T12:00:00Z'))).toBe(expected);
  });
});

describe('values as sources send them', () => {
  it('parseJsonExact keeps every number as its decimal text, strings and structure untouched', () => {
    expect(
      parseJsonExact('{"a": 81.6512345678901234, "b": [-1, 0, 1e-7, 2E+3], "c": "12.50", "d\\"5": true, "e": null}'),
    ).toEqual({
      a: '81.6512345678901234',
      b: ['-1', '0', '1e-7', '2E+3'],
      c: '12.50',
      'd"5': true,
      e: null,
    });
    expect(() => parseJsonExact('{"a": 01}')).toThrow(SyntaxError);
    expect(() => parseJsonExact('{"a": 1')).toThrow(SyntaxError);
  });

  it('bounds nesting at 64 levels before parsing; brackets inside strings, escaped quotes included, count for nothing', () => {
    const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    expect(() => parseSourceJson(nested(64))).not.toThrow();
    expect(() => parseSourceJson(nested(65))).toThrow(
      new JsonBoundsError('JSON nested more than 64 levels deep (level 65 opens at character 65); expected at most 64'),
    );
    const strings = `{"a": "[[[[\\"[[[", "b\\\\": "${'{'.repeat(100)}", "c": ["\\\\", ${nested(62)}]}`;
    expect(parseSourceJson(strings)).toMatchObject({ a: '[[[["[[[', 'b\\': '{'.repeat(100) });
    // The same, a byte at a time: an escape split between two chunks of an answer is still an escape.
    const scan = new JsonBoundsScan();
    for (const byte of Buffer.from(`${strings}`)) scan.feed(Uint8Array.of(byte));
    const deeper = new JsonBoundsScan();
    expect(() => {
      for (const byte of Buffer.from(`["\\\\", ${nested(64)}]`)) deeper.feed(Uint8Array.of(byte));
    }).toThrow(/level 65 opens at character 71/);
  });

  it('bounds XML the same: 64 levels, 500,000 elements; comments, CDATA, self-closed and quoted ">" count for nothing', () => {
    const nested = (depth: number) => `${'<a>'.repeat(depth)}${'</a>'.repeat(depth)}`;
    expect(xmlBoundsProblem(`<?xml version="1.0"?>${nested(64)}`)).toBeUndefined();
    expect(xmlBoundsProblem(nested(65))).toBe(
      'XML nested more than 64 levels deep (level 65 opens at character 193); expected at most 64',
    );
    const inert = `<r>${'<b x="a>b" y=\'<c>\'/>'.repeat(100)}<!-- ${'<a>'.repeat(100)} --><![CDATA[${'<a>'.repeat(100)}]]>${nested(63)}</r>`;
    expect(xmlBoundsProblem(inert)).toBeUndefined();
    expect(xmlBoundsProblem(`<r>${'<b/>'.repeat(499_999)}</r>`)).toBeUndefined();
    expect(xmlBoundsProblem(`<r>${'<b/>'.repeat(500_000)}</r>`)).toBe(
      'XML of more than 500,000 elements; expected at most 500,000',
    );
  });

  it('bounds the values of one answer at 500,000', () => {
    expect(() => parseSourceJson(`[${'1,'.repeat(499_999)}1]`)).not.toThrow();
    expect(() => parseSourceJson(`[${'1,'.repeat(500_000)}1]`)).toThrow(/JSON of more than 500,000 values/);
    // Commas inside strings are no values.
    expect(() => parseSourceJson(`["${','.repeat(600_000)}"]`)).not.toThrow();
  });

  it.each([
    ['97012.30000000', { text: '97012.30000000' }],
    ['1.2e-05', { text: '0.000012' }],
    ['0', { problem: 'is zero: "0"' }],
    ['0.00000000', { problem: 'is zero: "0.00000000"' }],
    ['-1', { problem: 'is negative: "-1"' }],
    ['', { problem: 'is an empty string' }],
    ['81,5032', { problem: 'is not a decimal: "81,5032"' }],
    [' 1', { problem: 'is not a decimal: " 1"' }],
    ['NaN', { problem: 'is not a decimal: "NaN"' }],
    [true, { problem: 'is not a decimal: true' }],
    [undefined, { problem: 'is missing' }],
    [null, { problem: 'is missing' }],
  ])('priceText(%j)', (value, expected) => {
    expect(priceText(value)).toEqual(expected);
  });
});
