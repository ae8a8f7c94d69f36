// The archive's diffs: the old segments and the operations give the new segments exactly, for random edits of a
// classic export and of line files, and a rate move is written as its numbers alone.
import { describe, expect, it } from 'vitest';
import { applyDiff, diffSegments } from '../../../../src/pure/archive/diff.js';
import { segmentsOf } from '../../../../src/pure/archive/segments.js';
import { random, type Next } from '../../../support/random.js';

const item = (from: string, to: string, rate: string, extra = '') =>
  `\n  <item>\n    <from>${from}</from>\n    <to>${to}</to>\n    <in>1</in>\n    <out>${rate}</out>\n    <amount>5000</amount>${extra}\n  </item>`;
const file = (items: string[]) => `<?xml version="1.0" encoding="UTF-8"?>\n<rates>${items.join('')}\n</rates>\n`;

const SEED = Number(process.env.ARCHIVE_SEED ?? 47);

describe('segments', () => {
  it('cut an XML export at its items and a line file at its lines, and join back to the same text', () => {
    const xml = file([item('BTC', 'SBERRUB', '5000100'), item('BTC', 'USDT', '97000.5')]);
    expect(segmentsOf(xml)).toHaveLength(4);
    expect(segmentsOf(xml).join('')).toBe(xml);
    const lines = 'A : 1 = 2\nB : 3 = 4\n';
    expect(segmentsOf(lines)).toEqual(['A : 1 = 2\n', 'B : 3 = 4\n']);
    expect(segmentsOf('<rates></rates>').join('')).toBe('<rates></rates>');
    expect(segmentsOf('')).toEqual([]);
  });
});

describe('diffSegments', () => {
  it('writes a moved rate as its number alone', () => {
    const before = segmentsOf(file([item('BTC', 'SBERRUB', '5000100'), item('BTC', 'USDT', '97000.5')]));
    const after = segmentsOf(file([item('BTC', 'SBERRUB', '5000200'), item('BTC', 'USDT', '97000.5')]));
    const ops = diffSegments(before, after);
    expect(ops).toEqual([1, [1, '5000200'], 2]);
    expect(applyDiff(before, ops)).toEqual(after);
  });

  it('keeps the items around one taken out or put in', () => {
    const a = item('A', 'B', '1.5');
    const b = item('A', 'C', '2.5');
    const c = item('B', 'C', '3.5');
    const before = segmentsOf(file([a, b, c]));
    const after = segmentsOf(file([a, c]));
    expect(diffSegments(before, after)).toEqual([2, -1, 2]);
    expect(applyDiff(after, diffSegments(after, before))).toEqual(before);
  });

  it(`rebuilds the new version exactly for random edits (seed ${SEED})`, () => {
    const next = random(SEED);
    for (let round = 0; round < 300; round++) {
      const before = randomExport(next);
      const after = edited(before, next);
      const old = segmentsOf(before);
      const ops = diffSegments(old, segmentsOf(after));
      expect(applyDiff(old, ops).join(''), `round ${round}`).toBe(after);
    }
  });

  it('refuses operations that do not fit the old segments', () => {
    expect(() => applyDiff(['a'], [2])).toThrow(/past the old segments/);
    expect(() => applyDiff(['a1'], [[3, '2']])).toThrow(/not in the segment/);
  });
});

const codes = ['BTC', 'ETH', 'USDTTRC20', 'SBERRUB', 'CASHRUB', 'TRX', 'BEP20'];

function randomExport(next: Next): string {
  if (next() < 0.3) {
    const lines = Array.from(
      { length: 1 + Math.floor(next() * 8) },
      (_, i) => `${codes[i % codes.length]}${i} : 1 = ${(next() * 1000).toFixed(4)}\n`,
    );
    return lines.join('');
  }
  const items = Array.from({ length: Math.floor(next() * 12) }, (_, i) =>
    item(
      codes[i % codes.length]!,
      codes[(i * 3 + 1) % codes.length]!,
      (next() * 1e6).toFixed(2),
      next() < 0.3 ? '\n    <city>MSK</city>' : '',
    ),
  );
  return file(items);
}

/** Numbers moved, segments dropped, duplicated, swapped or rewritten. */
function edited(text: string, next: Next): string {
  const segments = segmentsOf(text);
  const out: string[] = [];
  for (const segment of segments) {
    const roll = next();
    if (roll < 0.1) continue;
    if (roll < 0.15) out.push(segment, segment);
    else if (roll < 0.5)
      out.push(segment.replace(/\d+(\.\d+)?/g, (n) => (next() < 0.5 ? n : (Number(n) * 1.01).toFixed(3))));
    else if (roll < 0.55) out.push(segment.replace('BTC', 'XMR'));
    else out.push(segment);
  }
  if (out.length > 2 && next() < 0.2) [out[0], out[1]] = [out[1]!, out[0]!];
  return out.join('');
}
