// `ratefile validate`'s "priced by one source", from the config alone: the starter has none; the demo's one file sets
// everything; examples/live.yaml's venues check each other where their pairs meet; a consensus protects.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeStarter } from '../../../../src/commands/init.js';
import { loadConfig } from '../../../../src/io/config/load.js';
import { configSoleSource } from '../../../../src/pure/guards/sole-source.js';
import { repoRoot } from '../../../support/process.js';
import { makeProject } from '../../../support/project.js';
import { runRatefile } from '../../../support/run-cli.js';

describe('directions one source alone can set, from the config alone', () => {
  it('the `ratefile init` starter has none: its main pairs are consensus of two sources', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ratefile-starter-'));
    try {
      await writeStarter(dir);
      expect(configSoleSource(await loadConfig(join(dir, 'ratefile.config.yaml')))).toEqual([]);
      const validate = await runRatefile(['validate'], dir);
      expect(validate.code).toBe(0);
      expect(validate.stdout).not.toContain('priced by one source');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('the demo: its one quotes file sets every direction that needs a quote, and nothing could check it', async () => {
    const demo = await loadConfig(join(repoRoot, 'ratefile.config.yaml'));
    const entries = configSoleSource(demo);
    expect(entries).toHaveLength(demo.directions.filter((d) => d.from.asset !== d.to.asset).length);
    expect(entries.every((entry) => entry.reference === undefined && entry.sources.join() === 'backoffice')).toBe(true);
    expect(entries.find((e) => e.ids[0] === 'BTC>SBERRUB')).toEqual({
      ids: ['BTC>SBERRUB'],
      pairs: ['BTC/USDT (backoffice)', 'USDT/RUB (backoffice)'],
      sources: ['backoffice'],
    });
    expect(entries.find((e) => e.ids[0] === 'BTC>USDTTRC20')?.pairs).toEqual(['BTC to USDT (quotes of backoffice)']);
  });

  it("examples/live.yaml: the consensus pairs are nobody's; ETH/BTC can be checked by a cross through them", async () => {
    const entries = configSoleSource(await loadConfig(join(repoRoot, 'examples/live.yaml')));
    const byId = new Map(entries.map((entry) => [entry.ids[0], entry]));
    expect(byId.has('BTC>USDTTRC20')).toBe(false);
    expect(byId.get('ETH>BTC')).toEqual({
      ids: ['ETH>BTC'],
      pairs: ['ETH/BTC (binance)'],
      sources: ['binance'],
      reference: 'cross BTC/USDT × ETH/USDT',
    });
    expect(byId.get('USDTTRC20>SBERRUB')).toEqual({
      ids: ['USDTTRC20>SBERRUB'],
      pairs: ['USDT/RUB (coingecko)'],
      sources: ['coingecko'],
    });
    expect(byId.get('CASHEUR>CASHUSD')?.reference).toBe('cross EUR/RUB × USD/RUB');
  });

  it('a consensus of quorum 1 can be one source alone; another source of the pair is a possible reference', async () => {
    const project = await makeProject({
      'ratefile.config.yaml': `sources:
  a: { type: binance, pairs: [BTC/USDT] }
  b: { type: bybit, pairs: [BTC/USDT] }
  c: { type: okx, pairs: [BTC/USDT] }
rates:
  BTC/USDT: { sources: [a, b], quorum: 1, spread: 1% }
currencies:
  BTC: { reserve: "3" }
  USDTTRC20: { precision: 2, reserve: "100000" }
defaults:
  margin: 1.5%
directions:
  - { from: BTC, to: USDTTRC20 }
`,
    });
    try {
      expect(configSoleSource(await loadConfig(project.configPath, project.dir))).toEqual([
        { ids: ['BTC>USDTTRC20'], pairs: ['BTC/USDT (a, b)'], sources: ['a', 'b'], reference: 'c:BTC/USDT' },
      ]);
      const validate = await runRatefile(['validate'], project.dir);
      expect(validate.stdout).toContain(
        'priced by one source: 1 direction, 0 without a possible reference (one broken source can set their rate: docs/pricing-and-guards.md)\n  BTC/USDT (a, b): can be checked against c:BTC/USDT — BTC → USDTTRC20\n',
      );
    } finally {
      await project.remove();
    }
  });
});
