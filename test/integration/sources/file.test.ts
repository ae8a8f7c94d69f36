// The `file` source: one bad entry drops only that quote (by its index), a JSON syntax error is one line with its
// line and column, an absurdly long number is dropped naming the pair. Real files, and `ratefile build` in-process.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileSource } from '../../../src/io/sources/file.js';
import { jsonSyntaxError } from '../../../src/pure/sources/syntax.js';
import { projectsPerTest, sampleQuotes } from '../../support/project.js';
import { runRatefile } from '../../support/run-cli.js';
import { contextFor } from './contract.js';

const project = projectsPerTest();

const logLines = (stderr: string): string[] =>
  stderr
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.replace(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z /, ''));

/** The file source's result for `quotes.json` holding `text`. */
async function readQuotes(text: string) {
  const { dir } = await project({ 'quotes.json': text });
  const result = await fileSource.fetchQuotes(fileSource.options.parse({ type: 'file', path: 'quotes.json' }), {
    ...contextFor('backoffice', {}),
    configDir: dir,
  });
  return Array.isArray(result) ? { quotes: result, problems: [] } : result;
}

describe('file source: a bad entry drops only its quote', () => {
  it('a bid of "96850,10" drops that quote, logged with its index; every direction of the other quotes is published', async () => {
    const quotes = { quotes: [{ pair: 'ETH/USDT', bid: '96850,10', ask: '96850.20' }, ...sampleQuotes.quotes] };
    const { dir } = await project({ 'quotes.json': JSON.stringify(quotes, null, 2) });
    const result = await runRatefile(['build'], dir);
    // Exit 1: a quote was unusable, as for a zero bid; the files are written without it.
    expect(result.code).toBe(1);
    const lines = logLines(result.stderr);
    expect(lines).toContain(
      'warn source backoffice: dropped quote ETH/USDT: quotes[0].bid: expected a non-negative decimal like "12.5", got "96850,10"',
    );
    expect(lines.some((line) => line.startsWith('warn source backoffice failed'))).toBe(false);
    expect(lines.at(-1)).toMatch(/^info build: published 4 directions, 0 held back; /);
    expect(await readFile(join(dir, 'public', 'parserfile.xml'), 'utf8')).toContain('<from>BTC</from>');
  });

  it('names each bad entry by its index and path, in a bare list too; a good entry after it still counts', async () => {
    const result = await readQuotes(
      JSON.stringify([
        { pair: 'BTC/USDT', bid: '1', ask: '2', time: 'yesterday' },
        { pair: 'BTC-USDT', bid: '1', ask: '2' },
        { pair: 'USDT/RUB', bid: '92.10', ask: '92.35' },
        'not a quote',
      ]),
    );
    expect(result.quotes.map((quote) => quote.pair)).toEqual(['USDT/RUB']);
    expect(result.problems).toEqual([
      'BTC/USDT: [0].time: expected an ISO 8601 time like "2026-11-21T12:00:00Z", got "yesterday"',
      expect.stringMatching(/^BTC-USDT: \[1\]\.pair: expected /),
      expect.stringMatching(/^\[3\]: expected /),
    ]);
  });

  it('a file nested 5,000,000 deep (10,000,010 bytes) is refused before parsing; a file over 10 MB is not read', async () => {
    const deep = `{"quotes":${'['.repeat(5_000_000)}${']'.repeat(5_000_000)}}`;
    await expect(readQuotes(deep)).rejects.toThrow(
      /^backoffice: .*quotes\.json: refused before parsing: JSON nested more than 64 levels deep \(level 65 opens at character 74\); expected at most 64$/,
    );
    await expect(readQuotes(' '.repeat(10 * 1024 * 1024 + 1))).rejects.toThrow(
      /^backoffice: cannot read quotes file .*quotes\.json: 10485761 bytes, more than the 10485760 allowed$/,
    );
  });

  it('an object of 450,000 keys is one line, not a problem per key', async () => {
    const keys = `{${Array.from({ length: 450_000 }, (_, i) => `"k${i}":1`).join(',')}}`;
    await expect(readQuotes(keys)).rejects.toThrow(
      /^backoffice: .*quotes\.json: expected a list of quotes, bare or as \{"quotes": \[\.\.\.\]\}, got an object of 450000 keys \("k0", "k1", "k2", …\)$/,
    );
  });

  it('a file of the wrong shape still fails the source as a whole', async () => {
    await expect(readQuotes('{"rates": []}')).rejects.toThrow(/backoffice: .*quotes\.json: \d+ problems?/);
  });
});

describe('file source: a JSON syntax error is one line, with line and column', () => {
  it('names the line and column of a missing comma, on one log line', async () => {
    const text = '{\n  "quotes": [\n    { "pair": "BTC/USDT", "bid": "1" "ask": "2" }\n  ]\n}\n';
    const { dir } = await project({ 'quotes.json': text });
    const result = await runRatefile(['build'], dir);
    expect(result.code).toBe(1);
    const failed = logLines(result.stderr).filter((line) => line.includes('not valid JSON'));
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatch(
      /^warn source backoffice failed: backoffice: .*quotes\.json: not valid JSON: line 3, column 38: expected "," or "}", got "\\""$/,
    );
  });

  it.each([
    [
      '{ "quotes": [',
      1,
      14,
      'expected a value (a string, number, object, list, true, false or null), got the end of the text',
    ],
    ['[\n  {"pair": "BTC/USDT",}\n]', 2, 23, 'expected a property name in double quotes, got "}"'],
    ['[1,]', 1, 4, 'expected a value (a string, number, object, list, true, false or null), got "]"'],
    ['{"a": "x\ny"}', 1, 9, 'a line break or control character inside a string (write it as \\n, \\t, …)'],
    ['{"a": "\\x"}', 1, 8, 'an unknown escape in a string'],
    ['{"a" 1}', 1, 6, 'expected ":" after the property name, got "1"'],
    ['[1] 2', 1, 5, 'expected the end of the text after the value, got "2"'],
    ['[01]', 1, 3, 'expected "," or "]", got "1"'],
    ['{"a": "open', 1, 12, 'a string not closed before the end of the text'],
    ['', 1, 1, 'expected a value (a string, number, object, list, true, false or null), got the end of the text'],
  ])('%j: line %i, column %i', (text, line, column, problem) => {
    expect(() => JSON.parse(text)).toThrow(SyntaxError);
    expect(jsonSyntaxError(text)).toEqual({ line, column, problem });
  });

  it('agrees with JSON.parse on every one-character edit of a quotes file', () => {
    const text = JSON.stringify(
      { quotes: [{ pair: 'BTC/USDT', bid: '97012.30', ask: 97012.31, ok: true, note: null, esc: 'a\\"\u00e9' }, []] },
      null,
      1,
    );
    const edits = new Set<string>([text]);
    for (let i = 0; i <= text.length; i++) {
      edits.add(text.slice(0, i) + text.slice(i + 1));
      for (const c of [',', '"', '}', ']', '0', '-', '.', 'e', '\\', '\n'])
        edits.add(text.slice(0, i) + c + text.slice(i));
    }
    let broken = 0;
    for (const edit of edits) {
      let valid = true;
      try {
        JSON.parse(edit);
      } catch {
        valid = false;
        broken++;
      }
      expect(jsonSyntaxError(edit) === undefined, edit).toBe(valid);
    }
    // The edits are mostly breaking ones, so both answers were exercised.
    expect(broken).toBeGreaterThan(edits.size / 2);
  });
});

describe('file source: numbers stay as written and are bounded', () => {
  it('a price written as a JSON number keeps every digit (no float in between)', async () => {
    const result = await readQuotes(
      '[{"pair": "BTC/USDT", "bid": 97012.123456789012345678, "ask": 97012.123456789012345679}]',
    );
    expect(result.quotes.map(({ bid, ask }) => [bid, ask])).toEqual([
      ['97012.123456789012345678', '97012.123456789012345679'],
    ]);
  });

  it('an absurdly long number is dropped, naming the pair; the other quotes count', async () => {
    const long = `1.${'0'.repeat(60)}1`;
    const quotes = { quotes: [{ pair: 'ETH/USDT', bid: long, ask: '3000' }, ...sampleQuotes.quotes] };
    const { dir } = await project({ 'quotes.json': JSON.stringify(quotes).replace(`"${long}"`, long) });
    const result = await runRatefile(['build'], dir);
    expect(result.code).toBe(1);
    const lines = logLines(result.stderr);
    expect(lines).toContain(
      `warn source backoffice: dropped quote ETH/USDT: bid has 62 digits, more than 40: "1.${'0'.repeat(38)}…"`,
    );
    expect(lines.at(-1)).toMatch(/^info build: published 4 directions, 0 held back; /);
  });
});
