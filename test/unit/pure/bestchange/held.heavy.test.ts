// What a parsed feed keeps (issue 28): its rows, not the unpacked text of bm_rates.dat. A give of 13 or more
// characters cut from the 8 MB text is, in V8, a view that keeps the whole text alive for as long as the feed is
// kept (in `start`: always, and two feeds while the next one is parsed). Measured as memory outside V8's heap, where
// Node keeps a text of that size; vitest runs each test file in its own process.
import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { parseFeed } from '../../../../src/pure/bestchange/feed.js';
import { realDump } from '../../../support/bestchange.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

describe('a parsed feed', () => {
  it('does not keep the unpacked text of bm_rates.dat (8 MB) alive', () => {
    const zip = readFileSync(realDump);
    gc();
    const before = process.memoryUsage().external;
    const feed = parseFeed(zip);
    gc();
    const kept = process.memoryUsage().external - before;
    // Long gives and gets are in it as their own strings, equal to the text's.
    const long = [...feed.directions.values()].flat().find((row) => row.give.length >= 13);
    expect(long?.give).toMatch(/^\d+\.\d+$/);
    expect(feed.rows).toBe(202_690);
    expect(kept).toBeLessThan(2 * 1024 * 1024);
  });
});
