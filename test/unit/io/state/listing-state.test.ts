// .ratefile/listing.json (src/io/state/listing-state.ts): the published rates' times read back for the config's competing
// directions only, a malformed entry dropped whole, an unreadable file a problem (starting afresh), and writes at
// most once a minute while the next build still reads the newest memory.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ListingMemory } from '../../../../src/pure/compete/listing.js';
import { LISTING_WRITE_LAG_MS, readListingMemory, writeListingMemory } from '../../../../src/io/state/listing-state.js';

const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});
const folder = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'ratefile-listing-'));
  folders.push(dir);
  return dir;
};
const t0 = Date.parse('2026-11-21T12:00:00Z');
const memoryAt = (rate: string, seconds: number): ListingMemory => ({
  'BTC>SBERRUB': { versions: [{ rate, at: new Date(t0 + seconds * 1000).toISOString() }] },
});
const ids = new Set(['BTC>SBERRUB', 'CASHUSD>BTC']);

describe('the listing memory file', () => {
  it('keeps the config’s directions (and their cities) only, and drops a malformed entry whole', async () => {
    const dir = await folder();
    const good = {
      versions: [{ rate: '1:4940000.51', at: '2026-11-21T12:00:00.000Z', seenAt: '2026-11-21T12:00:30.000Z' }],
      lagSeconds: 30,
    };
    await writeFile(
      join(dir, 'listing.json'),
      JSON.stringify({
        version: 1,
        directions: {
          'BTC>SBERRUB': good,
          'CASHUSD>BTC@MSK': good,
          'ETH>SBERRUB': good,
          'CASHUSD>BTC@SPB': { versions: [{ rate: 'abc', at: '2026-11-21T12:00:00.000Z' }] },
        },
      }),
    );
    const { memory, problem } = await readListingMemory(dir, ids);
    expect(problem).toBeUndefined();
    expect(Object.keys(memory).sort()).toEqual(['BTC>SBERRUB', 'CASHUSD>BTC@MSK']);
    expect(memory['BTC>SBERRUB']).toEqual(good);
  });

  it('starts afresh from an unreadable file, saying why', async () => {
    const dir = await folder();
    await writeFile(join(dir, 'listing.json'), '{"version": 1, "directions": {');
    const { memory, problem } = await readListingMemory(dir, ids);
    expect(memory).toEqual({});
    expect(problem).toMatch(/listing\.json: unreadable, starting without the published rates' times: /);
  });

  it('writes at most once a minute; the next read still has the newest memory', async () => {
    const dir = await folder();
    await writeListingMemory(dir, memoryAt('1:1', 0), new Date(t0));
    await writeListingMemory(dir, memoryAt('1:2', 10), new Date(t0 + 10_000));
    const onDisk = () =>
      readFile(join(dir, 'listing.json'), 'utf8').then((text) => JSON.parse(text) as { directions: ListingMemory });
    expect((await onDisk()).directions['BTC>SBERRUB']?.versions[0]?.rate).toBe('1:1');
    expect((await readListingMemory(dir, ids)).memory['BTC>SBERRUB']?.versions[0]?.rate).toBe('1:2');
    await writeListingMemory(dir, memoryAt('1:3', 70), new Date(t0 + LISTING_WRITE_LAG_MS + 10_000));
    expect((await onDisk()).directions['BTC>SBERRUB']?.versions[0]?.rate).toBe('1:3');
    expect((await readListingMemory(dir, ids)).memory['BTC>SBERRUB']?.versions[0]?.rate).toBe('1:3');
  });
});
