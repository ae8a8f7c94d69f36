// `rates:` and shaped reserves as `validate` reads them: every mistake a line naming the pair (or the currency),
// all at once; a correct block becomes rules in the order they are made.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/io/config/load.js';
import { RatefileError } from '../../../../src/base/errors.js';
import { projectsPerTest, sampleConfig, sampleTemplates } from '../../../support/project.js';

const project = projectsPerTest();
const files = (config: string) => ({
  'ratefile.config.yaml': config,
  'quotes.json': '{"quotes": []}',
  ...Object.fromEntries(Object.entries(sampleTemplates).map(([name, text]) => [`templates/${name}`, text])),
});

async function problems(config: string): Promise<readonly string[]> {
  const { dir } = await project(files(config));
  const error = await loadConfig('ratefile.config.yaml', dir).then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof RatefileError)) throw new Error('expected a config error');
  return error.details as readonly string[];
}

const withRates = (rates: string) =>
  sampleConfig.replace(
    'sources:\n  backoffice: { type: file, path: quotes.json }\n',
    `sources:\n  backoffice: { type: file, path: quotes.json }\n  other: { type: file, path: quotes.json }\n  third: { type: file, path: quotes.json }\nrates:\n${rates}`,
  );

describe('rates: in the config', () => {
  it('a correct block: formulas and a consensus, made in an order that reads each ruled pair after it is made', async () => {
    const { dir } = await project(
      files(
        withRates(
          '  BTC/RUB: "backoffice:BTC/USDT * USDT/RUB"\n  USDT/RUB: { sources: [backoffice, other, "third:USDT/USD * 92"], spread: 1.5% }\n',
        ),
      ),
    );
    const config = await loadConfig('ratefile.config.yaml', dir);
    expect(config.rates.map((rule) => `${rule.pair} ${rule.kind}`)).toEqual(['USDT/RUB consensus', 'BTC/RUB formula']);
    const consensus = config.rates[0]!;
    if (consensus.kind !== 'consensus') throw new Error('expected a consensus');
    expect([consensus.method, consensus.quorum, consensus.spread?.toString()]).toEqual(['median', 2, '0.015']);
    expect(consensus.terms.map((term) => `${term.label} = ${term.formula.text}`)).toEqual([
      'backoffice = backoffice:USDT/RUB',
      'other = other:USDT/RUB',
      'third:USDT/USD * 92 = third:USDT/USD * 92',
    ]);
  });

  it('every mistake at once, each with its line', async () => {
    const lines = await problems(
      withRates(
        [
          '  BTC/RUB: "backofice:BTC/USDT * USDT/RUB"',
          '  EUR/RUB: "USDT/RUB * (1.1 +"',
          '  USDT/RUB: { sources: [backoffice, other], quorum: 3 }',
          '  ETH/RUB: { sources: [backoffice, other, third], method: trimmed, quorum: 2 }',
          '  RUB/RUB: "backoffice:USDT/RUB"',
          '  TON/RUB: { sources: [backoffice] }',
          '  XRP/RUB: { sources: [backoffice, other], method: best }',
          '  TRX/RUB: { sources: [backoffice, "other:TRX/USDT * (2"] }',
          '',
        ].join('\n'),
      ),
    );
    expect([...lines].sort()).toEqual(
      [
        'rates.BTC/RUB: expected a source of `sources:`, got "backofice" (did you mean backoffice?) (line 7)',
        'rates.EUR/RUB: at column 18: expected a pair, a number or "(", got the end (line 8)',
        'rates.USDT/RUB.quorum: expected at most the 2 terms listed, got 3 (line 9)',
        'rates.ETH/RUB.quorum: expected at least 3 for a trimmed mean (it drops the highest and the lowest term), got 2 (line 10)',
        'rates.RUB/RUB: expected two different assets, got "RUB/RUB" (line 11)',
        'rates.TON/RUB.sources: expected at least two terms: a consensus of one source is that source (line 12)',
        'rates.XRP/RUB.method: expected one of median, mean, trimmed, worst, got "best" (line 13)',
        'rates.TRX/RUB.sources[1]: at column 20: expected ")", got the end (line 14)',
      ].sort(),
    );
  });

  it('a pair made of itself through other pairs is a loop, named pair by pair', async () => {
    const lines = await problems(
      withRates('  USDT/UAH: "BTC/UAH / backoffice:BTC/USDT"\n  BTC/UAH: "backoffice:BTC/USDT * USDT/UAH"\n'),
    );
    expect(lines).toEqual([
      'rates.USDT/UAH: expected a pair made of other pairs, got a loop: USDT/UAH → BTC/UAH → USDT/UAH (a term naming its source, like "binance:USDT/UAH", reads that source\'s quote, not the book\'s) (line 7)',
    ]);
  });

  it('two rules for one market, both ways round, are one problem naming both (the second would be ignored)', async () => {
    const lines = await problems(
      withRates(
        '  EUR/USDT: "backoffice:EUR/USDT"\n  USDT/EUR: { sources: [backoffice, other], quorum: 2, spread: 1% }\n',
      ),
    );
    expect(lines).toEqual([
      'rates.USDT/EUR: expected one rule per market, got rules for both "EUR/USDT" and "USDT/EUR" (one market the other way round: only one would be used, the other\'s sources, quorum and spread ignored); keep one (line 8)',
    ]);
  });

  it('a reserve formula names reserve sources that exist and stands alone', async () => {
    const config = sampleConfig
      .replace(
        'SBERRUB: { reserve: "5000000" }',
        'SBERRUB: { reserve: "5", reserveFormula: "wallet:SBERRUB - payouts:SBERRUB" }',
      )
      .replace('currencies:', 'reserves:\n  wallet: { type: file, path: quotes.json }\ncurrencies:');
    expect(await problems(config)).toEqual([
      'currencies.SBERRUB.reserveFormula: set one of reserve, reserveFrom and reserveFormula (line 9)',
      'currencies.SBERRUB.reserveFormula: expected a reserve source of `reserves:`, got "payouts" (line 9)',
    ]);
  });
});
