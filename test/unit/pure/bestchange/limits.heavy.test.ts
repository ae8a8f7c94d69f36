// The bounds a feed is held to before it is parsed (issue 23.2): unpacked sizes by the zip's directory, the
// line count of bm_rates.dat, the length of a line. A 1.6-million-row feed is refused, never parsed.
import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { maxFeedRows, maxLineLength, maxRatesBytes, parseFeed } from '../../../../src/pure/bestchange/feed.js';
import { base, bigFeed, dump } from '../../../support/bestchange.js';

describe('feed limits', () => {
  it('refuses a 1.6-million-row bm_rates.dat (a 200 KB zip) by its unpacked size, before unpacking it', () => {
    const zip = bigFeed();
    expect(zip.length).toBeLessThan(400_000);
    expect(() => parseFeed(zip)).toThrow(
      new RegExp(
        `^bm_rates\\.dat unpacks to 62400000 bytes, more than the ${maxRatesBytes} allowed: refused before unpacking$`,
      ),
    );
  });

  it('refuses 1.6 million short rows that fit the size limit by their line count, before parsing', () => {
    const rates = Buffer.from('2;1;10;1;5;6;;\n'.repeat(1_600_000), 'latin1');
    expect(rates.length).toBeLessThanOrEqual(maxRatesBytes);
    const zip = zipSync({ ...files(), 'bm_rates.dat': [rates, { level: 1 }] });
    expect(() => parseFeed(zip)).toThrow(
      `bm_rates.dat has more than ${maxFeedRows} lines (the real feed has about 200,000 rows): refused before parsing`,
    );
  });

  it('takes a feed of exactly the most rows', () => {
    const rates = Buffer.from('2;1;10;1;5;6;;\n'.repeat(maxFeedRows), 'latin1');
    expect(parseFeed(zipSync({ ...files(), 'bm_rates.dat': [rates, { level: 1 }] })).rows).toBe(maxFeedRows);
  });

  it('refuses an oversized bm_exch.dat and a line longer than any row', () => {
    const exchangers = Buffer.from(`10;A;;0;1\n${'x'.repeat(2 * 1024 * 1024)}\n`, 'latin1');
    expect(() => parseFeed(zipSync({ ...files(), 'bm_exch.dat': exchangers }))).toThrow(
      /^bm_exch\.dat unpacks to \d+ bytes, more than the 1048576 allowed: refused before unpacking$/,
    );
    const long = `2;1;10;1;5;6;${'0'.repeat(maxLineLength)};0`;
    expect(() => parseFeed(dump({ ...base, 'bm_rates.dat': `2;1;10;1;5;6;0;0\n${long}\n` }))).toThrow(
      `bm_rates.dat line 2: longer than ${maxLineLength} characters`,
    );
  });

  it('unpacks no more than the directory says, when it understates an entry', () => {
    const zip = Buffer.from(dump({ ...base, 'bm_rates.dat': '2;1;10;1;5;6;0;0\n'.repeat(1000) }));
    // The central directory's uncompressed size of bm_rates.dat, set to 100 bytes.
    const entry = zip.indexOf(Buffer.from('PK\u0001\u0002', 'latin1'));
    let at = entry;
    for (;;) {
      const nameLength = zip.readUInt16LE(at + 28);
      if (zip.toString('latin1', at + 46, at + 46 + nameLength) === 'bm_rates.dat') break;
      at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    }
    zip.writeUInt32LE(100, at + 24);
    // fflate inflates into a buffer of the stated size: what it holds is cut there (a broken last row, or fewer rows).
    let rows = 0;
    try {
      rows = parseFeed(zip).rows;
    } catch (error) {
      expect((error as Error).message).toMatch(/^(not a readable zip|bm_rates\.dat line \d+:)/);
    }
    expect(rows).toBeLessThanOrEqual(Math.ceil(100 / '2;1;10;1;5;6;0;0\n'.length));
  });
});

/** The small files of a feed, as fflate takes them. */
function files(): Record<string, Uint8Array> {
  const encode = (text: string) => Buffer.from(text, 'latin1');
  return { 'bm_cycodes.dat': encode('1;SBERRUB\n2;BTC\n'), 'bm_exch.dat': encode('10;A;;0;1\n') };
}
