// The `compete:` block in the config: normalized into the direction's rule, and every mistake named by its path.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/io/config/load.js';
import { RatefileError } from '../../../../src/base/errors.js';
import { projectsPerTest } from '../../../support/project.js';

const project = projectsPerTest();

const config = (compete: string, sources = '  bc: { type: bestchange }\n') => `sources:
  backoffice: { type: file, path: quotes.json }
${sources}currencies:
  BTC: { reserve: "3" }
  USDTTRC20: { precision: 2, reserve: "100000" }
  SBERRUB: { reserve: "5000000" }
directions:
  - { from: BTC, to: SBERRUB, margin: 2%, compete: ${compete} }
`;

async function problems(compete: string, sources?: string): Promise<string> {
  const { dir } = await project({ 'ratefile.config.yaml': config(compete, sources) });
  const error = await loadConfig('ratefile.config.yaml', dir).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(RatefileError);
  expect(error).toMatchObject({ code: 'E_CONFIG' });
  return (error as RatefileError).details.join('\n');
}

describe('compete: in the config', () => {
  it('normalizes the block: the only bestchange source, the range, fractions, ignore by name and id, minReserve', async () => {
    const { dir } = await project({
      'ratefile.config.yaml': config(
        '{ place: "1-3", step: 0.01%, floor: 0.5%, ceiling: 3%, ignore: [MyExchanger, 1042, "77"], minReserve: 1000 USDT }',
      ),
    });
    const rule = (await loadConfig('ratefile.config.yaml', dir)).directions[0]!.compete!;
    expect(rule).toMatchObject({ source: 'bc', target: '1-3', best: 1, worst: 3, minReserve: { asset: 'USDT' } });
    expect([rule.step, rule.floor, rule.ceiling, rule.deviation, rule.minReserve!.value].map(String)).toEqual([
      '0.0001',
      '0.005',
      '0.03',
      '0.1',
      '1000',
    ]);
    expect([...rule.ignoreNames]).toEqual(['myexchanger']);
    expect([...rule.ignoreIds]).toEqual([1042, 77]);
  });

  it('cap and war are on by default (2 typical steps; 3 rounds within 2m, 15m cool-down); self comes from the source', async () => {
    const load = async (compete: string, sources?: string) => {
      const { dir } = await project({ 'ratefile.config.yaml': config(compete, sources) });
      return (await loadConfig('ratefile.config.yaml', dir)).directions[0]!.compete!;
    };
    const defaults = await load('{ place: 2, floor: 0%, ceiling: 1% }');
    expect(String(defaults.cap)).toBe('2');
    expect(defaults.war).toEqual({ rounds: 3, withinMs: 120_000, coolDownMs: 900_000 });
    expect(defaults.selfIds).toBeUndefined();
    const set = await load(
      '{ place: 2, floor: 0%, ceiling: 1%, cap: 1.5, war: { rounds: 4, coolDown: 1h } }',
      '  bc: { type: bestchange, self: [501, 502] }\n',
    );
    expect(String(set.cap)).toBe('1.5');
    expect(set.war).toEqual({ rounds: 4, withinMs: 120_000, coolDownMs: 3_600_000 });
    expect([...set.selfIds!]).toEqual([501, 502]);
    const off = await load(
      '{ place: 2, floor: 0%, ceiling: 1%, cap: off, war: off }',
      '  bc: { type: bestchange, self: 7 }\n',
    );
    expect(off.cap).toBeUndefined();
    expect(off.war).toBeUndefined();
    expect([...off.selfIds!]).toEqual([7]);
  });

  it('a plain minReserve is of the to currency; step defaults to 0%, deviation to 10%', async () => {
    const { dir } = await project({
      'ratefile.config.yaml': config('{ place: 2, floor: 0%, ceiling: 1%, minReserve: 1000 }'),
    });
    const rule = (await loadConfig('ratefile.config.yaml', dir)).directions[0]!.compete!;
    expect(rule).toMatchObject({ target: '2', best: 2, worst: 2, minReserve: { asset: 'RUB' } });
    expect([rule.step, rule.deviation].map(String)).toEqual(['0', '0.1']);
  });

  it('warns when the margin (the fallback) lies outside [floor, ceiling]', async () => {
    const warnings = async (compete: string) => {
      const { dir } = await project({ 'ratefile.config.yaml': config(compete) });
      return (await loadConfig('ratefile.config.yaml', dir)).warnings;
    };
    expect(await warnings('{ place: 1, floor: 0.5%, ceiling: 3% }')).toEqual([]);
    expect(await warnings('{ place: 1, floor: 2.5%, ceiling: 3% }')).toEqual([
      'directions[0].compete: the margin "2%" is below the floor "2.5%": when the field is not trusted, the rate is more generous than the floor (line 9)',
    ]);
    expect(await warnings('{ place: 1, floor: 0%, ceiling: 1% }')).toEqual([
      'directions[0].compete: the margin "2%" is above the ceiling "1%": when the field is not trusted, the rate is less generous than the ceiling (line 9)',
    ]);
  });

  it.each([
    [
      'place 0',
      '{ place: 0, floor: 1%, ceiling: 2% }',
      'directions[0].compete.place: expected a place like 3 or a range like "1-3" (1 is the best), got 0',
    ],
    [
      'a place in words',
      '{ place: third, floor: 1%, ceiling: 2% }',
      'directions[0].compete.place: expected a place like 3 or a range like "1-3" (1 is the best), got "third"',
    ],
    [
      'a range backwards',
      '{ place: "3-1", floor: 1%, ceiling: 2% }',
      'directions[0].compete.place: expected a range from the better place to the worse like "1-3", got "3-1"',
    ],
    [
      'floor above ceiling',
      '{ place: 1, floor: 3%, ceiling: 2% }',
      'directions[0].compete.floor: expected a floor no higher than the ceiling "2%" (the floor is the least margin), got "3%"',
    ],
    [
      'a step that is not a percent',
      '{ place: 1, step: 0.01, floor: 1%, ceiling: 2% }',
      'directions[0].compete.step: expected a percentage like "1.5%", got 0.01',
    ],
    [
      'a negative floor',
      '{ place: 1, floor: -1%, ceiling: 2% }',
      'directions[0].compete.floor: expected a floor of 0% or more like "0.5%", got "-1%"',
    ],
    [
      'a minReserve in an unknown currency',
      '{ place: 1, floor: 1%, ceiling: 2%, minReserve: 1000 XYZQ }',
      'directions[0].compete.minReserve: unknown unit "XYZQ"',
    ],
    ['no floor', '{ place: 1, ceiling: 2% }', 'directions[0].compete.floor: required'],
    [
      'a cap in words',
      '{ place: 1, floor: 1%, ceiling: 2%, cap: two }',
      'directions[0].compete.cap: expected a number of typical steps like 2, or "off", got "two"',
    ],
    [
      'a war in words',
      '{ place: 1, floor: 1%, ceiling: 2%, war: maybe }',
      'directions[0].compete.war: expected "off" or a mapping like { rounds: 3, within: 2m, coolDown: 15m }, got "maybe"',
    ],
    [
      'war rounds of one',
      '{ place: 1, floor: 1%, ceiling: 2%, war: { rounds: 1 } }',
      'directions[0].compete.war.rounds: expected a whole number of rounds from 2 to 100, got 1',
    ],
    [
      'a war cool-down that is not a duration',
      '{ place: 1, floor: 1%, ceiling: 2%, war: { coolDown: soon } }',
      'directions[0].compete.war.coolDown: expected a duration like "10s", "5m" or "1h", got "soon"',
    ],
    ['an unknown key', '{ place: 1, floor: 1%, ceiling: 2%, celing: 3% }', 'directions[0].compete.celing: unknown key'],
    [
      'an unknown source',
      '{ source: bcc, place: 1, floor: 1%, ceiling: 2% }',
      'directions[0].compete.source: expected a bestchange source (bc) (did you mean "bc"?), got "bcc"',
    ],
    [
      'a source of another type',
      '{ source: backoffice, place: 1, floor: 1%, ceiling: 2% }',
      'directions[0].compete.source: expected a bestchange source (bc), got "backoffice", a source of another type',
    ],
  ])('%s', async (_what, compete, line) => {
    expect(await problems(compete)).toContain(line);
  });

  it('tiers do not mix with compete: the field sets one rate for every amount', async () => {
    const { dir } = await project({
      'ratefile.config.yaml': config('{ place: 3, floor: 0.5%, ceiling: 3% }').replace(
        'compete:',
        'tiers: [{ from: 1, margin: 1% }], compete:',
      ),
    });
    const error = await loadConfig('ratefile.config.yaml', dir).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'E_CONFIG' });
    expect((error as RatefileError).details.join('\n')).toContain(
      'directions[0].tiers: not with compete: a competing direction publishes one rate for every amount',
    );
  });

  it('listing: only with self, its tolerance not negative', async () => {
    const compete = '{ place: 1, floor: 1%, ceiling: 2% }';
    expect(await problems(compete, '  bc: { type: bestchange, listing: { alertAfter: 5m } }\n')).toContain(
      'sources.bc.listing: only with self: (the ids whose listing is compared)',
    );
    expect(await problems(compete, '  bc: { type: bestchange, self: 1, listing: { tolerance: -1% } }\n')).toContain(
      'sources.bc.listing.tolerance: expected a tolerance of 0% or more like "1%"',
    );
  });

  it('no bestchange source, or several without naming one', async () => {
    expect(await problems('{ place: 1, floor: 1%, ceiling: 2% }', '')).toContain(
      'directions[0].compete: needs a source of type bestchange in sources (the feed to compete in), found none',
    );
    expect(
      await problems(
        '{ place: 1, floor: 1%, ceiling: 2% }',
        '  bc: { type: bestchange }\n  mirror: { type: bestchange }\n',
      ),
    ).toContain(
      'directions[0].compete.source: required: the config has several bestchange sources (bc, mirror); name the one to compete in',
    );
  });
});

describe('examples/compete.yaml', () => {
  it('loads, with a rule on each competing direction', async () => {
    const config = await loadConfig(new URL('../../../../examples/compete.yaml', import.meta.url).pathname);
    expect(config.directions.map((d) => [d.id, d.compete?.target ?? null])).toEqual([
      ['BTC>SBERRUB', '3'],
      ['USDTTRC20>SBERRUB', '1-3'],
      ['USDTTRC20>CASHRUB', '2'],
      ['SBERRUB>USDTTRC20', null],
      ['SBERRUB>USDTERC20', null],
    ]);
    expect(config.directions[0]!.compete?.minReserve).toEqual({ value: expect.anything() as unknown, asset: 'USDT' });
    // The war settings it shows are the defaults the others get: our own id from the source, cap 2, 3 rounds in 2m, 15m.
    for (const direction of config.directions.filter((d) => d.compete)) {
      const rule = direction.compete!;
      expect([...rule.selfIds!], direction.id).toEqual([40]);
      expect(String(rule.cap), direction.id).toBe('2');
      expect(rule.war, direction.id).toEqual({ rounds: 3, withinMs: 120_000, coolDownMs: 900_000 });
    }
  });
});
