// Issue 23, defect 6: a stale quote is not used, and the shortest chain through what is left is. A direct EUR/USD
// past its source's maxAge, a fresh EUR/RUB and USD/RUB from another source: CASHEUR→CASHUSD is priced through the
// cross, and `ratefile build` exits 1 naming the stale quote (a source sent a quote it could not use).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectsPerTest } from '../../support/project.js';
import { runRatefile } from '../../support/run-cli.js';

const project = projectsPerTest();
const now = () => new Date('2026-11-21T12:00:30Z');

const config = (chain = '') => `sources:
  desk: { type: file, path: desk.json, maxAge: 5m, priority: 1 }
  bank: { type: file, path: bank.json, maxAge: 5m }
currencies:
  CASHEUR: { precision: 4, reserve: "100000" }
  CASHUSD: { precision: 4, reserve: "100000" }
directions:
  - { from: CASHEUR, to: CASHUSD, margin: 0%, cities: [MSK]${chain} }
`;

const files = (chain = '') => ({
  'ratefile.config.yaml': config(chain),
  // An hour old: the desk stopped writing. Its priority would win the market while its quote is usable.
  'desk.json': JSON.stringify({
    quotes: [{ pair: 'EUR/USD', bid: '1.2000', ask: '1.2001', time: '2026-11-21T11:00:00Z' }],
  }),
  'bank.json': JSON.stringify({
    quotes: [
      { pair: 'EUR/RUB', bid: '100', ask: '101', time: '2026-11-21T12:00:00Z' },
      { pair: 'USD/RUB', bid: '90', ask: '91', time: '2026-11-21T12:00:00Z' },
    ],
  }),
  'templates/parserfile.yaml': 'description: every direction\n',
  'templates/reffile.yaml': 'include: { tags: [ref] }\n', // the sample's aliases name currencies this config has not
});

describe('a stale quote is routed around', () => {
  it('prices CASHEUR→CASHUSD through EUR/RUB and USD/RUB, and exits 1 naming the stale EUR/USD', async () => {
    const made = await project(files());
    const result = await runRatefile(['build'], made.dir, { now });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain(
      'source desk: dropped quote EUR/USD: 3630 s old, past its maxAge of 300 s: not used',
    );
    expect(result.stderr).toContain('published 1 direction, 0 held back');
    // Sell EUR at the bank's bid 100, buy USD at its ask 91: 1.0989 (down to 4 places), not the stale 1.2.
    const xml = await readFile(join(made.dir, 'public', 'parserfile.xml'), 'utf8');
    expect(xml).toMatch(/<from>CASHEUR<\/from>\s*<to>CASHUSD<\/to>\s*<in>1<\/in>\s*<out>1\.0989<\/out>/);

    const status = await runRatefile(['status', '--json'], made.dir, { now });
    const body = JSON.parse(status.stdout) as {
      published: string[];
      sources: { name: string; ok: boolean; quotes: number; lastError?: string }[];
    };
    expect(body.published).toEqual(['CASHEUR>CASHUSD']);
    expect(body.sources.find((s) => s.name === 'desk')).toMatchObject({
      quotes: 0,
      lastError: 'dropped quotes: EUR/USD: 3630 s old, past its maxAge of 300 s: not used',
    });
  });

  it("an explicit chain through the stale quote is held back as stale, in the guards' words", async () => {
    const made = await project(files(', chain: [EUR/USD]'));
    const result = await runRatefile(['build'], made.dir, { now });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain(
      'held back CASHEUR → CASHUSD (directions[0]): quote EUR/USD from desk is 3630 s old (limit 300 s)',
    );
    const status = JSON.parse((await runRatefile(['status', '--json'], made.dir, { now })).stdout) as {
      heldBack: { direction: string; kind: string }[];
    };
    expect(status.heldBack).toEqual([expect.objectContaining({ direction: 'CASHEUR>CASHUSD', kind: 'stale' })]);
  });
});
