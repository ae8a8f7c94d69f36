// What a parsed feed keeps (issue 28): its rows, not the unpacked text of bm_rates.dat. A give of 13 or more
// characters cut from the 8 MB text is, in V8, a view that keeps the whole text alive for as long as the feed is
// kept (in `start`: always, and two feeds while the next one is parsed). Measured as memory outside V8's heap, where
// Node keeps a text of that size. V8 frees an array buffer's memory on a sweeper thread after the collection that
// found it dead (Node 24 often later than 22), so the figure is the least of several collections, each after a turn
// of the event loop: memory a feed really keeps never goes.
import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { parseFeed } from '../../../../src/pure/bestchange/feed.js';
import { realDump } from '../../../support/bestchange.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

describe('a parsed feed', () => {
  it('does not keep the unpacked text of bm_rates.dat (8 MB) alive', async () => {
    const zip = readFileSync(realDump);
    const settled = async () => {
      let least = Number.POSITIVE_INFINITY;
      for (let round = 0; round < 8; round++) {
        gc();
        await new Promise((next) => setImmediate(next));
        least = Math.min(least, process.memoryUsage().external);
      }
      return least;
    };
    const before = await settled();
    const feed = parseFeed(zip);
    const kept = (await settled()) - before;
    // Long gives and gets are in it as their own strings, equal to the text's.
    const long = [...feed.directions.values()].flat().find((row) => row.give.length >= 13);
    expect(long?.give).toMatch(/^\d+\.\d+$/);
    expect(feed.rows).toBe(202_690);
    expect(kept).toBeLessThan(2 * 1024 * 1024);
  });
});
