// .ratefile/wars.json (src/io/state/war-state.ts) on real files: what is written is read back; only the config's directions
// with war detection on are read, a malformed entry is dropped whole, and a file that is too large or unreadable
// starts afresh with a problem to log instead of failing the build.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { WarMemory } from '../../../../src/pure/compete/war.js';
import { readWarMemory, WAR_RATE_LAG_MS, writeWarMemory } from '../../../../src/io/state/war-state.js';

const t0 = new Date('2026-11-21T12:00:00Z');

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});
async function stateDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ratefile-wars-'));
  dirs.push(dir);
  return dir;
}

const memory: WarMemory = {
  'BTC>SBERRUB': {
    rate: '1:4934403.04',
    rounds: 3,
    war: {
      rival: 'Bravo',
      rivalId: 200,
      rounds: 3,
      since: '2026-11-21T12:03:00.000Z',
      until: '2026-11-21T12:18:00.000Z',
      hold: '1:4934403.04',
    },
  },
  'USDTTRC20>SBERRUB': {
    rate: '1:92.5',
    rounds: 1,
    pending: { at: '2026-11-21T12:03:00.000Z', rivalId: 30, rival: 'Gamma', rivalRate: '92.49' },
  },
};

describe('the war memory file', () => {
  it('is read back as written, for the directions asked for only', async () => {
    const dir = await stateDir();
    await writeWarMemory(dir, memory, t0);
    expect((await readWarMemory(dir, new Set(Object.keys(memory)))).memory).toEqual(memory);
    expect((await readWarMemory(dir, new Set(['BTC>SBERRUB', 'GONE>AWAY']))).memory).toEqual({
      'BTC>SBERRUB': memory['BTC>SBERRUB'],
    });
    expect((await readWarMemory(dir, new Set())).memory).toEqual({});
  });

  it('drops a malformed entry whole and keeps the rest', async () => {
    const dir = await stateDir();
    const broken = {
      version: 1,
      directions: {
        ...memory,
        'A>B': { rate: '1:2', rounds: -1 },
        'C>D': {
          rate: '1:2',
          rounds: 1,
          war: { rival: 'X', rivalId: 1, rounds: 3, since: 'soon', until: 'x', hold: '1:2' },
        },
      },
    };
    await writeFile(join(dir, 'wars.json'), JSON.stringify(broken));
    const read = await readWarMemory(dir, new Set([...Object.keys(memory), 'A>B', 'C>D']));
    expect(read).toEqual({ memory });
  });

  it('an unreadable or oversized file starts afresh with a problem to log', async () => {
    const dir = await stateDir();
    await writeFile(join(dir, 'wars.json'), '{ not json');
    const unreadable = await readWarMemory(dir, new Set(['BTC>SBERRUB']));
    expect(unreadable.memory).toEqual({});
    expect(unreadable.problem).toMatch(/wars\.json: unreadable, starting without the memory of price wars: /);
    await writeFile(join(dir, 'wars.json'), ' '.repeat(4 * 1024 * 1024 + 1));
    expect((await readWarMemory(dir, new Set(['BTC>SBERRUB']))).problem).toMatch(/larger than 4194304 bytes/);
  });

  it('is not written again while it is unchanged, nor at all while empty', async () => {
    const dir = await stateDir();
    await writeWarMemory(dir, {}, t0);
    await expect(readFile(join(dir, 'wars.json'), 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
    await writeWarMemory(dir, memory, t0);
    // Changed behind its back: an unchanged memory is not written over it.
    await writeFile(join(dir, 'wars.json'), 'edited');
    await writeWarMemory(dir, structuredClone(memory), t0);
    expect(await readFile(join(dir, 'wars.json'), 'utf8')).toBe('edited');
  });

  it('only the last rates moved: written again after WAR_RATE_LAG_MS; a move, an answer or a war at once', async () => {
    const dir = await stateDir();
    const file = () => readFile(join(dir, 'wars.json'), 'utf8');
    await writeWarMemory(dir, memory, t0);
    const moved = structuredClone(memory);
    moved['USDTTRC20>SBERRUB']!.rate = '1:92.4';
    await writeWarMemory(dir, moved, new Date(t0.getTime() + WAR_RATE_LAG_MS - 1));
    expect(await file()).not.toContain('1:92.4');
    await writeWarMemory(dir, moved, new Date(t0.getTime() + WAR_RATE_LAG_MS));
    expect(await file()).toContain('1:92.4');
    const answered = structuredClone(moved);
    answered['USDTTRC20>SBERRUB']!.rounds = 2;
    await writeWarMemory(dir, answered, new Date(t0.getTime() + WAR_RATE_LAG_MS + 1));
    expect(JSON.parse(await file())).toEqual({ version: 1, directions: answered });
  });
});
