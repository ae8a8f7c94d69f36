// loadConfig: the sample project loads into the normalized model, and every kind of problem in a config
// or template comes back as one E_CONFIG error whose lines read `path: message (line N)`.
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/io/config/load.js';
import { RatefileError } from '../../../../src/base/errors.js';
import { Decimal } from '../../../../src/base/decimal.js';
import { sourceDefinitions } from '../../../../src/io/sources/index.js';
import type { Config } from '../../../../src/model/config.js';
import { projectsPerTest, makeProject, sampleConfig, sampleTemplates, type Project } from '../../../support/project.js';

const project = projectsPerTest();

/** `text` with `from`, which must occur exactly once, replaced by `to` (so a changed sample fails loudly). */
function edit(text: string, from: string, to: string): string {
  const at = text.indexOf(from);
  if (at === -1 || text.includes(from, at + 1))
    throw new Error(`expected exactly one ${JSON.stringify(from)} in:\n${text}`);
  return text.slice(0, at) + to + text.slice(at + from.length);
}

/**
 * The sample config (14 lines, directions[0..2] on lines 12..14) with more directions appended, one per
 * line: the first appended one is directions[3] on line 15, the next directions[4] on line 16, and so on.
 */
function withDirections(...entries: string[]): string {
  return sampleConfig + entries.map((entry) => `  - ${entry}\n`).join('');
}

/** Load a project made of the sample files plus `files`; it must fail with E_CONFIG. */
async function loadError(files: Record<string, string>, path = 'ratefile.config.yaml'): Promise<RatefileError> {
  const dir = (await project(files)).dir;
  const loading = loadConfig(path, dir);
  await expect(loading).rejects.toBeInstanceOf(RatefileError);
  await expect(loading).rejects.toMatchObject({ code: 'E_CONFIG' });
  return (await loading.catch((error: unknown) => error)) as RatefileError;
}

/** The problem lines of a config (and the sample templates unless replaced); checks the summary message too. */
async function problems(config: string, files: Record<string, string> = {}): Promise<readonly string[]> {
  const error = await loadError({ 'ratefile.config.yaml': config, ...files });
  const count = error.details.length;
  expect(error.message).toBe(`ratefile.config.yaml: ${count} problem${count === 1 ? '' : 's'}`);
  return error.details;
}

/** Exactly these lines, in any order. */
function expectLines(actual: readonly string[], expected: readonly string[]): void {
  expect([...actual].sort()).toEqual([...expected].sort());
}

async function loads(config: string, files: Record<string, string> = {}): Promise<Config> {
  return loadConfig('ratefile.config.yaml', (await project({ 'ratefile.config.yaml': config, ...files })).dir);
}

it('the sample config has the 14 lines the line numbers below count on', () => {
  expect(sampleConfig.split('\n')).toHaveLength(15);
  expect(sampleConfig.split('\n')[11]).toMatch(/^ {2}- \{ from: BTC/);
  expect(sampleConfig.split('\n')[13]).toMatch(/^ {2}- \{ from: USDTTRC20/);
});

describe('loadConfig on the sample project', () => {
  let sample: Project;
  let config: Config;
  beforeAll(async () => {
    sample = await makeProject();
    config = await loadConfig('ratefile.config.yaml', sample.dir);
  });
  afterAll(() => sample.remove());

  it('reads the currencies with assets from the code list and precision defaults by kind', () => {
    expect([...config.currencies.keys()]).toEqual(['BTC', 'USDTTRC20', 'SBERRUB', 'CASHRUB']);
    expect(config.currencies.get('BTC')).toMatchObject({ code: 'BTC', asset: 'BTC', precision: 8 });
    expect(config.currencies.get('USDTTRC20')).toMatchObject({ code: 'USDTTRC20', asset: 'USDT', precision: 2 });
    expect(config.currencies.get('SBERRUB')).toMatchObject({ code: 'SBERRUB', asset: 'RUB', precision: 2 });
    expect(config.currencies.get('CASHRUB')).toMatchObject({ code: 'CASHRUB', asset: 'RUB', precision: 0 });
    expect([...config.currencies.values()].map((currency) => currency.reserve.toFixed())).toEqual([
      '3',
      '100000',
      '5000000',
      '3000000',
    ]);
  });

  it('expands from/to lists into one direction per pair, in config order', () => {
    expect(
      config.directions.map((direction) => [direction.id, direction.index, direction.from.code, direction.to.code]),
    ).toEqual([
      ['BTC>SBERRUB', 0, 'BTC', 'SBERRUB'],
      ['BTC>USDTTRC20', 0, 'BTC', 'USDTTRC20'],
      ['SBERRUB>USDTTRC20', 1, 'SBERRUB', 'USDTTRC20'],
      ['USDTTRC20>CASHRUB', 2, 'USDTTRC20', 'CASHRUB'],
    ]);
  });

  it('gives every direction the default margin as a fraction', () => {
    expect(config.directions.map((direction) => direction.margin.toFixed())).toEqual([
      '0.015',
      '0.015',
      '0.015',
      '0.015',
    ]);
  });

  it('parses limits: a bare amount in the from asset, "500000 RUB" in RUB', () => {
    const [btcSber, btcUsdt, sberUsdt, usdtCash] = config.directions;
    expect(btcSber?.min?.asset).toBe('BTC');
    expect(btcSber?.min?.value.toFixed()).toBe('0.001');
    expect(btcSber?.max?.asset).toBe('RUB');
    expect(btcSber?.max?.value.toFixed()).toBe('500000');
    expect(btcUsdt?.max?.asset).toBe('RUB');
    expect(sberUsdt?.min?.asset).toBe('RUB');
    expect(sberUsdt?.min?.value.toFixed()).toBe('5000');
    expect(sberUsdt?.max).toBeUndefined();
    expect(usdtCash?.min).toBeUndefined();
    expect(usdtCash?.max).toBeUndefined();
  });

  it("takes each direction's reserve from its to currency, and keeps params, fees, cities and tags", () => {
    const [btcSber, btcUsdt, sberUsdt, usdtCash] = config.directions;
    expect([btcSber, btcUsdt, sberUsdt, usdtCash].map((direction) => direction?.reserve.toFixed())).toEqual([
      '5000000',
      '100000',
      '100000',
      '3000000',
    ]);
    expect(sberUsdt).toMatchObject({ params: ['manual'], fromfee: '1%', cities: [], tags: [] });
    expect(sberUsdt?.tofee).toBeUndefined();
    expect(usdtCash).toMatchObject({ params: [], cities: ['MSK', 'SPB'], tags: ['ref', 'cash'] });
    expect(btcSber).toMatchObject({ params: [], cities: [], tags: ['ref'] });
    expect(btcSber?.chain).toBeUndefined();
  });

  it('fills in the top-level defaults and resolves paths against the config file', () => {
    expect(config.file).toBe(join(sample.dir, 'ratefile.config.yaml'));
    expect(config.dir).toBe(sample.dir);
    expect(config.schedule).toBe('*/30 * * * * *');
    expect(config.server).toEqual({
      port: 8080,
      host: '127.0.0.1',
      headers: { cacheControl: 'no-cache', cdnCacheControl: 'max-age=30' },
    });
    expect(config.output).toBe(join(sample.dir, 'public'));
    expect(config.templatesDir).toBe(join(sample.dir, 'templates'));
    expect(config.sources).toEqual([
      { name: 'backoffice', type: 'file', options: { type: 'file', path: 'quotes.json' } },
    ]);
  });

  it("server.headers: the exports' caching headers as set, CDN-Cache-Control by default the schedule period", async () => {
    const set = await loads(
      `${sampleConfig}schedule: "0 */5 * * * *"\nserver: { headers: { Cache-Control: "no-store", CDN-Cache-Control: "max-age=10, stale-if-error=60" } }\n`,
    );
    expect(set.server.headers).toEqual({ cacheControl: 'no-store', cdnCacheControl: 'max-age=10, stale-if-error=60' });
    const period = await loads(`${sampleConfig}schedule: "0 */5 * * * *"\n`);
    expect(period.server.headers).toEqual({ cacheControl: 'no-cache', cdnCacheControl: 'max-age=300' });
    expectLines(await problems(`${sampleConfig}server: { headers: { Cache-Control: "no cache; please" } }\n`), [
      'server.headers.Cache-Control: expected cache directives like "no-cache" or "max-age=30, stale-if-error=60", got "no cache; please" (line 15)',
    ]);
  });

  it('loads the templates sorted by name, with tags, aliases, markup as a fraction and url', () => {
    expect(config.exports.map((template) => template.name)).toEqual(['affiliatefile', 'parserfile', 'reffile']);
    const [affiliate, parser, ref] = config.exports;
    expect(affiliate).toMatchObject({
      file: 'affiliatefile.xml',
      excludeTags: ['cash'],
      aliases: {},
      url: 'https://exchanger.example/?cur_from={from}&cur_to={to}',
    });
    expect(affiliate?.includeTags).toBeUndefined();
    expect(affiliate?.markup.toFixed()).toBe('0.005');
    expect(parser).toMatchObject({
      file: 'parserfile.xml',
      description: 'every direction',
      excludeTags: [],
      aliases: {},
    });
    expect(parser?.markup.toFixed()).toBe('0');
    expect(parser?.url).toBeUndefined();
    expect(ref).toMatchObject({
      file: 'reffile.xml',
      includeTags: ['ref'],
      excludeTags: [],
      aliases: { USDTTRC20: 'USDTTRC' },
    });
  });

  it('has no warnings: every code and city is on the monitors’ lists', () => {
    expect(config.warnings).toEqual([]);
  });
});

describe('loadConfig details', () => {
  it('lets a direction override defaults; lists replace, not merge; duplicates in lists collapse', async () => {
    const config = await loads(
      edit(
        sampleConfig,
        'defaults:\n  margin: 1.5%\n',
        'defaults:\n  margin: 1.5%\n  tags: [all]\n  params: [verifying]\n',
      ) +
        '  - { from: CASHRUB, to: BTC, margin: "-0.5 %", tags: [cash, cash], params: [manual, reg, manual], delay: 30, floating: 15 }\n',
    );
    const byId = new Map(config.directions.map((direction) => [direction.id, direction]));
    expect(byId.get('SBERRUB>USDTTRC20')).toMatchObject({ tags: ['all'], params: ['manual'] });
    expect(byId.get('BTC>SBERRUB')).toMatchObject({ tags: ['ref'], params: ['verifying'] });
    const cashBtc = byId.get('CASHRUB>BTC');
    expect(cashBtc).toMatchObject({ index: 3, tags: ['cash'], params: ['manual', 'reg'], delay: 30, floating: '15' });
    expect(cashBtc?.margin.toFixed()).toBe('-0.005');
    expect(byId.get('BTC>SBERRUB')?.margin.toFixed()).toBe('0.015');
  });

  it('keeps one object per distinct margin, limit and list, frozen so that no direction can change another', async () => {
    const config = await loads(
      `${sampleConfig}  - { from: SBERRUB, to: BTC, min: 5000, tags: [ref] }\n  - { from: CASHRUB, to: BTC, margin: 2%, min: "6000", tags: [cash] }\n`,
    );
    const byId = new Map(config.directions.map((direction) => [direction.id, direction]));
    const [sberUsdt, sberBtc, cashBtc, btcSber] = [
      'SBERRUB>USDTTRC20',
      'SBERRUB>BTC',
      'CASHRUB>BTC',
      'BTC>SBERRUB',
    ].map((id) => byId.get(id)!);
    // Equal values are one object: a config of 50,000 directions repeats a handful of each.
    expect(sberBtc!.margin).toBe(sberUsdt!.margin);
    expect(sberBtc!.min).toBe(sberUsdt!.min);
    expect(sberBtc!.tags).toBe(btcSber!.tags);
    expect(sberBtc!.cities).toBe(btcSber!.cities);
    // Different values stay apart, whatever the text looked like.
    expect(cashBtc!.margin.toFixed()).toBe('0.02');
    expect(cashBtc!.min).not.toBe(sberBtc!.min);
    expect(cashBtc!.min).toEqual({ value: new Decimal(6000), asset: 'RUB' });
    expect(cashBtc!.tags).toEqual(['cash']);
    // Shared, so frozen: a write throws instead of reaching every direction that shares the value.
    expect(() => (sberBtc!.tags as string[]).push('x')).toThrow(TypeError);
    expect(() => Object.assign(sberBtc!.min!, { asset: 'BTC' })).toThrow(TypeError);
    expect(btcSber!.tags).toEqual(['ref']);
  });

  it('shares equal chains, tiers, hours, fee texts and compete rules between directions, and keeps unequal ones apart', async () => {
    const same =
      'chain: "BTC/USDT * USDT/RUB", tiers: [{ from: 0.5, margin: 1% }], hours: "Mon-Fri 09:00-18:00 UTC", fromfee: "0.5%"';
    const other =
      'chain: [BTC/USDT, USDT/RUB, RUB/USDT, USDT/RUB], tiers: [{ from: 0.6, margin: 1% }], hours: "Mon-Fri 09:00-19:00 UTC", fromfee: "0.6%"';
    const compete = 'compete: { place: 2, floor: 0.5%, ceiling: 3%, ignore: [Alpha, 17] }';
    const config = await loads(
      `${edit(
        edit(
          sampleConfig,
          'backoffice: { type: file, path: quotes.json }\n',
          'backoffice: { type: file, path: quotes.json }\n  bc: { type: bestchange, baseUrl: "http://127.0.0.1:9", retries: 0 }\n',
        ),
        'CASHRUB: { precision: 0, reserve: "3000000" }\n',
        'CASHRUB: { precision: 0, reserve: "3000000" }\n  ACRUB: { reserve: "1" }\n  AVBRUB: { reserve: "1" }\n',
      )}  - { from: BTC, to: CASHRUB, cities: [MSK], ${same} }\n  - { from: BTC, to: ACRUB, ${same} }\n  - { from: BTC, to: AVBRUB, ${other} }\n` +
        `  - { from: ACRUB, to: BTC, ${compete} }\n  - { from: AVBRUB, to: BTC, ${compete} }\n` +
        '  - { from: CASHRUB, to: BTC, cities: [MSK], compete: { place: 3, floor: 0.5%, ceiling: 3% } }\n',
    );
    const [cash, alfa, avangard] = ['BTC>CASHRUB', 'BTC>ACRUB', 'BTC>AVBRUB'].map(
      (id) => config.directions.find((direction) => direction.id === id)!,
    );
    for (const key of ['chain', 'tiers', 'hours', 'fromfee'] as const) {
      expect(alfa![key], key).toBeDefined();
      expect(alfa![key], key).toBe(cash![key]);
      expect(avangard![key], key).not.toEqual(cash![key]);
    }
    expect(cash!.chain).toEqual(['BTC/USDT', 'USDT/RUB']);
    expect(avangard!.chain).toEqual(['BTC/USDT', 'USDT/RUB', 'RUB/USDT', 'USDT/RUB']);
    expect(cash!.tiers!.map((tier) => tier.from.toFixed())).toEqual(['0.5']);
    const [alfaBtc, avangardBtc, cashBtc] = ['ACRUB>BTC', 'AVBRUB>BTC', 'CASHRUB>BTC'].map(
      (id) => config.directions.find((direction) => direction.id === id)!.compete,
    );
    expect(avangardBtc).toBe(alfaBtc);
    expect(alfaBtc).toMatchObject({ source: 'bc', best: 2, worst: 2, ignore: ['Alpha', '17'] });
    expect(cashBtc).toMatchObject({ source: 'bc', best: 3, worst: 3, ignore: [] });
  });

  it('reads limits and reserves given as YAML numbers or with a currency code as unit', async () => {
    const config = await loads(
      edit(
        edit(sampleConfig, 'BTC: { reserve: "3" }', 'BTC: { reserve: 3.25 }'),
        'max: "500000 RUB"',
        'max: "1000 USDTTRC20", reserve: 12.5',
      ),
    );
    const [btcSber] = config.directions;
    expect(config.currencies.get('BTC')?.reserve.toFixed()).toBe('3.25');
    expect(btcSber?.max?.asset).toBe('USDT');
    expect(btcSber?.max?.value.toFixed()).toBe('1000');
    expect(btcSber?.reserve.toFixed()).toBe('12.5');
  });

  it('keeps an explicit chain, including one that walks a pair backwards', async () => {
    const config = await loads(
      withDirections(
        '{ from: USDTTRC20, to: BTC, chain: [BTC/USDT] }',
        '{ from: CASHRUB, to: BTC, chain: [USDT/RUB, BTC/USDT] }',
      ),
    );
    expect(config.directions.find((direction) => direction.id === 'USDTTRC20>BTC')?.chain).toEqual(['BTC/USDT']);
    expect(config.directions.find((direction) => direction.id === 'CASHRUB>BTC')?.chain).toEqual([
      'USDT/RUB',
      'BTC/USDT',
    ]);
  });

  it('accepts margins just inside ±100% and a five-field cron schedule', async () => {
    const config = await loads(
      `schedule: "*/5 * * * *"\n${withDirections('{ from: CASHRUB, to: BTC, margin: 99.99% }', '{ from: CASHRUB, to: SBERRUB, margin: "-99%" }')}`,
    );
    expect(config.schedule).toBe('*/5 * * * *');
    expect(config.directions.slice(-2).map((direction) => direction.margin.toFixed())).toEqual(['0.9999', '-0.99']);
  });

  it('resolves output, templates and the config dir relative to the config file, not the cwd', async () => {
    const files: Record<string, string> = {
      'conf/ratefile.config.yaml': `output: ../site\ntemplates: exports\n${sampleConfig}`,
      ...Object.fromEntries(Object.entries(sampleTemplates).map(([name, text]) => [`conf/exports/${name}`, text])),
    };
    const { dir } = await project(files);
    const fromProject = await loadConfig('conf/ratefile.config.yaml', dir);
    expect(fromProject.file).toBe(join(dir, 'conf', 'ratefile.config.yaml'));
    expect(fromProject.dir).toBe(join(dir, 'conf'));
    expect(fromProject.output).toBe(join(dir, 'site'));
    expect(fromProject.templatesDir).toBe(join(dir, 'conf', 'exports'));
    expect(fromProject.exports.map((template) => template.name)).toEqual(['affiliatefile', 'parserfile', 'reffile']);
    const fromElsewhere = await loadConfig(join(dir, 'conf', 'ratefile.config.yaml'), resolve('/'));
    expect(fromElsewhere.output).toBe(fromProject.output);
    expect(fromElsewhere.templatesDir).toBe(fromProject.templatesDir);
  });

  it('ignores files in the templates folder that are not <name>.yaml', async () => {
    const config = await loads(sampleConfig, {
      'templates/notes.txt': 'not a template',
      'templates/.hidden.yaml': 'junk: [',
    });
    expect(config.exports.map((template) => template.name)).toEqual(['affiliatefile', 'parserfile', 'reffile']);
  });

  it('warns, without failing, about a code not on the code list (asset given) and an unknown city, with line numbers', async () => {
    const config = await loads(
      edit(
        edit(
          sampleConfig,
          'BTC: { reserve: "3" }',
          'BTC: { reserve: "3" }\n  MYBANKRUB: { asset: RUB, reserve: "10" }\n  SBERRUBX: { asset: RUB, reserve: "10" }',
        ),
        '[MSK, SPB]',
        '[MSK, XYZQ, SPBB]',
      ),
    );
    expect(config.warnings).toEqual([
      "currencies.MYBANKRUB: not in the monitors' code list (line 6)",
      "currencies.SBERRUBX: not in the monitors' code list (closest: SBERRUB) (line 7)",
      'directions[2].cities: "XYZQ" is not in the monitors\' city list (line 16)',
      'directions[2].cities: "SPBB" is not in the monitors\' city list (closest: SPB) (line 16)',
    ]);
    expect(config.currencies.get('MYBANKRUB')).toMatchObject({ asset: 'RUB', precision: 2 });
    expect(config.directions.find((direction) => direction.id === 'USDTTRC20>CASHRUB')?.cities).toEqual([
      'MSK',
      'XYZQ',
      'SPBB',
    ]);
  });
});

describe('explicit chains', () => {
  it('may be written as one text, "A/B * B/C", and are checked the same way', async () => {
    const config = sampleConfig.replace(
      '- { from: BTC, to: [SBERRUB, USDTTRC20], min: 0.001, max: "500000 RUB", tags: [ref] }',
      '- { from: BTC, to: SBERRUB, chain: "BTC/USDT * USDT/RUB", min: 0.001, tags: [ref] }\n  - { from: BTC, to: USDTTRC20, chain: "BTC/USDT*USDT/RUB" }',
    );
    expect(config).not.toBe(sampleConfig);
    const made = await project({ 'ratefile.config.yaml': config });
    await expect(loadConfig(made.configPath)).rejects.toMatchObject({
      details: ['directions[1].chain: chain BTC/USDT * USDT/RUB ends at RUB, expected USDT (line 13)'],
    });
    await made.write('ratefile.config.yaml', config.replace('chain: "BTC/USDT*USDT/RUB"', 'chain: "BTC/USDT"'));
    const loaded = await loadConfig(made.configPath);
    expect(loaded.directions.map((d) => d.chain)).toEqual([
      ['BTC/USDT', 'USDT/RUB'],
      ['BTC/USDT'],
      undefined,
      undefined,
    ]);
  });
});

describe('loadConfig problems', () => {
  it('the issue’s example: margin "abc" on the 4th direction', async () => {
    const details = await problems(withDirections('{ from: CASHRUB, to: BTC, margin: abc }'));
    expect(details).toContain('directions[3].margin: expected a percentage like "1.5%", got "abc" (line 15)');
    // Only that value is wrong: nothing else may be blamed.
    expect(details.every((line) => line.startsWith('directions[3].margin: ') && line.endsWith(' (line 15)'))).toBe(
      true,
    );
  });

  it('points at the line of the value itself in a block-style direction', async () => {
    const details = await problems(`${sampleConfig}  - from: CASHRUB\n    to: BTC\n    margin: "1,5%"\n`);
    expect(details).toEqual(['directions[3].margin: expected a percentage like "1.5%", got "1,5%" (line 17)']);
  });

  it('values of the wrong type or shape', async () => {
    const details = await problems(
      withDirections(
        '{ from: 5, to: SBERRUB }',
        '{ from: CASHRUB, to: BTC, delay: soon, floating: abc, tags: [Cash], min: "1e5", reserve: "-1" }',
        '{ from: CASHRUB, to: [] }',
        '{ from: CASHRUB, to: USDTTRC20, delay: 1.5, chain: [BTCUSDT] }',
      ).replace('BTC: { reserve: "3" }', 'BTC: { reserve: "3 BTC", precision: 1.5 }'),
    );
    expectLines(details, [
      'currencies.BTC.precision: expected an integer 0..18, got 1.5 (line 5)',
      'currencies.BTC.reserve: expected a non-negative decimal like "12.5", got "3 BTC" (line 5)',
      'directions[3].from: expected currency code or a list of them, got 5 (line 15)',
      'directions[4].delay: expected a whole number of minutes, got "soon" (line 16)',
      'directions[4].floating: expected minutes like 15 or a percentage like "1%", got "abc" (line 16)',
      'directions[4].tags[0]: expected a tag in lower case like "ref", got "Cash" (line 16)',
      'directions[4].min: expected an amount like "0.01" or "5000 RUB", got "1e5" (line 16)',
      'directions[4].reserve: expected a non-negative decimal like "12.5", got "-1" (line 16)',
      'directions[5].to: expected at least one currency code (line 17)',
      'directions[6].delay: expected a whole number of minutes, got 1.5 (line 18)',
      'directions[6].chain[0]: expected a quote pair like "BTC/USDT", got "BTCUSDT" (line 18)',
    ]);
  });

  it('wrong types that only the generic checks catch still name the path and the line', async () => {
    const details = await problems(
      `schedule: 5\nserver: { port: "80" }\n${withDirections('"just text"', '{ from: CASHRUB, to: BTC, params: manual }')}`,
    );
    expectLines(details, [
      'schedule: expected a text, got 5 (line 1)',
      'server.port: expected a number, got "80" (line 2)',
      'directions[3]: expected a mapping, got "just text" (line 17)',
      'directions[4].params: expected a list, got "manual" (line 18)',
    ]);
  });

  it('missing required keys', async () => {
    const config = edit(
      edit(
        edit(sampleConfig, 'defaults:\n  margin: 1.5%\n', 'defaults:\n  tags: [all]\n'),
        'BTC: { reserve: "3" }',
        'BTC: {}',
      ),
      '{ type: file, path: quotes.json }',
      '{ type: file }',
    );
    expectLines(await problems(config), [
      'sources.backoffice.path: required (line 3)',
      'currencies.BTC.reserve: required: expected a reserve like "5000", reserveFrom naming a reserve source, or a reserveFormula (line 5)',
      'directions[0].margin: required (here or in defaults.margin): expected a percentage like "1.5%" (line 12)',
      'directions[1].margin: required (here or in defaults.margin): expected a percentage like "1.5%" (line 13)',
      'directions[2].margin: required (here or in defaults.margin): expected a percentage like "1.5%" (line 14)',
    ]);
  });

  it('an empty file: sources, currencies and directions are required (no line to point at)', async () => {
    const details = await problems('', { 'templates/reffile.yaml': 'include: { tags: [ref] }\n' });
    expectLines(details, ['sources: required', 'currencies: required', 'directions: required']);
  });

  it('unknown keys, with a "did you mean" hint for a misspelt one', async () => {
    const config = `${withDirections('{ from: CASHRUB, to: BTC, marign: 2% }')
      .replace('BTC: { reserve: "3" }', 'BTC: { reserve: "3", presicion: 8 }')
      .replace('path: quotes.json }', 'path: quotes.json, pth: x }')}colour: blue\nserver: { prot: 8080 }\n`;
    expectLines(await problems(config), [
      'sources.backoffice.pth: unknown key (did you mean "path"?) (line 3)',
      'currencies.BTC.presicion: unknown key (did you mean "precision"?) (line 5)',
      'directions[3].marign: unknown key (did you mean "margin"?) (line 15)',
      'colour: unknown key (line 16)',
      'server.prot: unknown key (did you mean "port"?) (line 17)',
    ]);
  });

  it('a misspelt key in defaults is an error, not a silently ignored default', async () => {
    expectLines(await problems(edit(sampleConfig, '  margin: 1.5%', '  marign: 1.5%')), [
      'defaults.marign: unknown key (did you mean "margin"?) (line 10)',
      'directions[0].margin: required (here or in defaults.margin): expected a percentage like "1.5%" (line 12)',
      'directions[1].margin: required (here or in defaults.margin): expected a percentage like "1.5%" (line 13)',
      'directions[2].margin: required (here or in defaults.margin): expected a percentage like "1.5%" (line 14)',
    ]);
  });

  it('unknown currencies in a direction, with a hint when one is close', async () => {
    const details = await problems(
      withDirections(
        '{ from: BTC, to: [SBERUB, CASHRUB] }',
        '{ from: USDTTRC2O, to: SBERRUB }',
        '{ from: CASHRUB, to: XYZ }',
      ),
    );
    expectLines(details, [
      'directions[3].to[0]: unknown currency "SBERUB" (did you mean "SBERRUB"?); expected a key of currencies (line 15)',
      'directions[4].from: unknown currency "USDTTRC2O" (did you mean "USDTTRC20"?); expected a key of currencies (line 16)',
      'directions[5].to: unknown currency "XYZ"; expected a key of currencies (line 17)',
    ]);
  });

  it('the same currency on both sides, and a direction given twice (also through a list)', async () => {
    const details = await problems(
      withDirections('{ from: BTC, to: BTC }', '{ from: SBERRUB, to: [CASHRUB, USDTTRC20] }'),
    );
    expectLines(details, [
      'directions[3]: from and to are the same currency (BTC) (line 15)',
      'directions[4]: duplicate direction SBERRUB → USDTTRC20, already at directions[1] (line 16)',
    ]);
  });

  it('chains that do not continue, end at the wrong asset, or sit on a list of currencies', async () => {
    const details = await problems(
      withDirections(
        '{ from: SBERRUB, to: BTC, chain: [USDT/RUB, ETH/USDT] }',
        '{ from: CASHRUB, to: BTC, chain: [BTC/USDT, USDT/RUB] }',
        '{ from: USDTTRC20, to: BTC, chain: [BTC/USDT] }',
        '{ from: CASHRUB, to: [USDTTRC20, SBERRUB], chain: [USDT/RUB] }',
      ),
    );
    expectLines(details, [
      'directions[3].chain: chain USDT/RUB * ETH/USDT ends at ETH, expected BTC (line 15)',
      'directions[4].chain: pair BTC/USDT does not continue from RUB (chain BTC/USDT * USDT/RUB must lead from RUB to BTC) (line 16)',
      'directions[6].chain: a chain fits one from and one to currency, not a list (line 18)',
    ]);
  });

  it('a schedule that is not a cron expression', async () => {
    expect(await problems(`schedule: "every minute"\n${sampleConfig}`)).toEqual([
      'schedule: expected a cron expression like "*/30 * * * * *", got "every minute" (line 1)',
    ]);
    expect(await problems(`schedule: "61 * * * *"\n${sampleConfig}`)).toEqual([
      'schedule: expected a cron expression like "*/30 * * * * *", got "61 * * * *" (line 1)',
    ]);
  });

  it('precision below 0 or above 18', async () => {
    const config = edit(
      edit(sampleConfig, 'BTC: { reserve: "3" }', 'BTC: { reserve: "3", precision: 19 }'),
      'SBERRUB: { reserve: "5000000" }',
      'SBERRUB: { reserve: "5000000", precision: -1 }',
    );
    expectLines(await problems(config), [
      'currencies.BTC.precision: expected an integer 0..18, got 19 (line 5)',
      'currencies.SBERRUB.precision: expected an integer 0..18, got -1 (line 7)',
    ]);
  });

  it('percentages: a bad shape, a number without %, and margins of ±100% or more', async () => {
    const details = await problems(
      withDirections(
        '{ from: CASHRUB, to: BTC, margin: "1,5%" }',
        '{ from: CASHRUB, to: SBERRUB, margin: 1.5 }',
        '{ from: SBERRUB, to: CASHRUB, margin: "-100%" }',
        '{ from: BTC, to: CASHRUB, margin: 150 % }',
      ),
    );
    expectLines(details, [
      'directions[3].margin: expected a percentage like "1.5%", got "1,5%" (line 15)',
      'directions[4].margin: expected a percentage like "1.5%", got 1.5 (line 16)',
      'directions[5].margin: expected a percentage between -100% and 100%, got "-100%" (line 17)',
      'directions[6].margin: expected a percentage between -100% and 100%, got "150 %" (line 18)',
    ]);
  });

  it('a default margin of 100% is refused', async () => {
    expect(await problems(edit(sampleConfig, 'margin: 1.5%', 'margin: 100%'))).toEqual([
      'defaults.margin: expected a percentage between -100% and 100%, got "100%" (line 10)',
    ]);
  });

  it('fees: lower-case units, words and signs are refused; amounts, percentages and units are accepted', async () => {
    const details = await problems(
      withDirections(
        '{ from: CASHRUB, to: BTC, fromfee: "1.5 usd", tofee: abc, minfee: "-2" }',
        '{ from: CASHRUB, to: SBERRUB, fromfee: 0.0005, tofee: "2 USD", minfee: "1.5 %" }',
      ),
    );
    expectLines(details, [
      'directions[3].fromfee: expected a fee like "0.0005", "1.5%" or "2 USD", got "1.5 usd" (line 15)',
      'directions[3].tofee: expected a fee like "0.0005", "1.5%" or "2 USD", got "abc" (line 15)',
      'directions[3].minfee: expected a fee like "0.0005", "1.5%" or "2 USD", got "-2" (line 15)',
    ]);
  });

  it('an unknown label in params', async () => {
    expect(await problems(withDirections('{ from: CASHRUB, to: BTC, params: [manual, vip] }'))).toEqual([
      'directions[3].params[1]: expected one of manual, juridical, verifying, cardverify, reg, otherin, otherout, got "vip" (line 15)',
    ]);
  });

  it('city codes that are not capitals, too long, or an empty list', async () => {
    const details = await problems(
      withDirections('{ from: CASHRUB, to: BTC, cities: [] }').replace('[MSK, SPB]', '[msk, MSK, MOSCOWCITYX]'),
    );
    expectLines(details, [
      'directions[2].cities[0]: expected a city code in capitals like "MSK", got "msk" (line 14)',
      'directions[2].cities[2]: expected a city code in capitals like "MSK", got "MOSCOWCITYX" (line 14)',
      'directions[3].cities: expected at least one city code (line 15)',
    ]);
  });

  it('an unknown source type, and a source without one', async () => {
    const config = edit(
      sampleConfig,
      'backoffice: { type: file, path: quotes.json }',
      'backoffice: { type: http, url: "https://x.example/" }\n  other: { path: quotes.json }',
    );
    // Every registered type, in the registry's order (file, binance, bybit, okx, kraken, coingecko, cbr, ecb, json, …).
    const types = sourceDefinitions.map((definition) => definition.type).join(', ');
    expect(types).toMatch(/^file, binance, bybit, okx, kraken, coingecko, cbr, ecb, json, bestchange\b/);
    expectLines(await problems(config), [
      `sources.backoffice.type: expected a source type, one of ${types}, got "http" (line 3)`,
      `sources.other.type: required: expected one of ${types} (line 4)`,
    ]);
  });

  it('a code not on the code list needs an asset', async () => {
    const config = edit(sampleConfig, 'BTC: { reserve: "3" }', 'BTC: { reserve: "3" }\n  MYBANKRUB: { reserve: "10" }');
    expect(await problems(config)).toEqual([
      'currencies.MYBANKRUB.asset: required: "MYBANKRUB" is not in the monitors\' code list, so say what it is priced as (e.g. RUB) (line 6)',
    ]);
  });

  it('invalid YAML', async () => {
    const error = await loadError({
      'ratefile.config.yaml': edit(sampleConfig, 'BTC: { reserve: "3" }', 'BTC: { reserve: "3"'),
    });
    expect(error.message).toBe('ratefile.config.yaml: not valid YAML');
    expect(error.details.length).toBeGreaterThan(0);
    // The parser notices the unclosed flow map where the next line starts.
    expect(error.details[0]).toMatch(/^line 6, column \d+: Flow map/);
  });

  it('a key given twice is invalid YAML, not a silent override', async () => {
    const error = await loadError({
      'ratefile.config.yaml': edit(sampleConfig, '  margin: 1.5%\n', '  margin: 1.5%\n  margin: 15%\n'),
    });
    expect(error.message).toBe('ratefile.config.yaml: not valid YAML');
    expect(error.details).toHaveLength(1);
    // The key named, with the line where it first was.
    expect(error.details[0]).toMatch(/^line (1[01]), column \d+: duplicate key "margin", first on line (\d+)$/);
    const [, line, first] = /^line (\d+), column \d+: duplicate key "margin", first on line (\d+)$/.exec(
      error.details[0]!,
    )!;
    expect(Number(first)).toBe(Number(line) - 1);
  });

  it('a config file that does not exist', async () => {
    const error = await loadError({}, 'missing.yaml');
    expect(error.message).toBe('missing.yaml: file not found');
    expect(error.details).toEqual([]);
    const nested = await loadError({}, join('conf', 'missing.yaml'));
    expect(nested.message).toBe(`${join('conf', 'missing.yaml')}: file not found`);
  });

  it('template problems: bad markup, unknown key, unknown placeholder, unknown or identical alias', async () => {
    const details = await problems(sampleConfig, {
      'templates/parserfile.yaml': 'markup: "1,5%"\nmarkpu: 1%\n',
      'templates/affiliatefile.yaml': 'url: "https://x.example/?from={from}&sum={amount}"\n',
      'templates/reffile.yaml': 'include: { tags: [ref] }\naliases: { USDTTRC2: USDTTRC, BTC: BTC }\n',
    });
    expectLines(details, [
      'templates/affiliatefile.yaml: url: expected only the placeholders {from}, {to}, {city}, got "https://x.example/?from={from}&sum={amount}" (line 1)',
      'templates/parserfile.yaml: markup: expected a percentage like "1.5%", got "1,5%" (line 1)',
      'templates/parserfile.yaml: markpu: unknown key (did you mean "markup"?) (line 2)',
      'templates/reffile.yaml: aliases.USDTTRC2: unknown currency "USDTTRC2" (did you mean "USDTTRC20"?); expected a key of currencies (line 2)',
      'templates/reffile.yaml: aliases.BTC: alias is the same as the code (line 2)',
    ]);
  });

  it('template problems: a markup of 100% and a url that is not http(s)', async () => {
    const details = await problems(sampleConfig, {
      'templates/affiliatefile.yaml': 'markup: 100%\nurl: "ftp://x.example/{from}"\n',
    });
    expectLines(details, [
      'templates/affiliatefile.yaml: markup: expected a percentage between -100% and 100%, got "100%" (line 1)',
      'templates/affiliatefile.yaml: url: expected an http(s) URL pattern like "https://exchanger.example/?cur_from={from}&cur_to={to}", got "ftp://x.example/{from}" (line 2)',
    ]);
  });

  it('a template that is not valid YAML is reported with the file name', async () => {
    const details = await problems(sampleConfig, { 'templates/reffile.yaml': 'aliases: [\n' });
    expect(details).toHaveLength(1);
    expect(details[0]).toMatch(/^templates\/reffile\.yaml: not valid YAML: \S/);
  });

  it('two templates for one export file (parserfile.yaml beside parserfile.yml, or names differing in case) name both', async () => {
    const details = await problems(sampleConfig, {
      'templates/parserfile.yml': 'include: { tags: [cash] }\n',
      'templates/RefFile.yaml': 'description: the same file as reffile.yaml on a case-insensitive disk\n',
    });
    expectLines(details, [
      'templates/parserfile.yml: writes parserfile.xml, as templates/parserfile.yaml does; keep one of the two templates',
      'templates/reffile.yaml: writes reffile.xml, as templates/RefFile.yaml does; keep one of the two templates',
    ]);
  });

  it('a templates folder that is missing or holds no templates', async () => {
    const missing = await problems(`templates: nowhere\n${sampleConfig}`);
    expect(missing).toHaveLength(1);
    expect(missing[0]).toMatch(/^nowhere: cannot read the templates folder: .*ENOENT/);
    expect(await problems(`templates: empty\n${sampleConfig}`, { 'empty/notes.txt': 'no templates here' })).toEqual([
      'empty: no export templates (<name>.yaml) found',
    ]);
  });

  it('reports every problem of the config and its templates at once, in one error', async () => {
    const config = [
      'schedule: "every minute"',
      'sources:',
      '  backoffice: { type: file, path: quotes.json, pth: x }',
      'currencies:',
      '  BTC: { reserve: "3", precision: 19 }',
      '  USDTTRC20: { precision: 2, reserve: "100000" }',
      '  SBERRUB: { reserve: "-5" }',
      '  CASHRUB: { precision: 0, reserve: "3000000" }',
      '  MYBANKRUB: { reserve: "10" }',
      'defaults:',
      '  margin: 100%',
      'directions:',
      '  - { from: BTC, to: [SBERRUB, USDTTRC20], max: lots }',
      '  - { from: SBERRUB, to: USDTTRC20, params: [vip] }',
      '  - { from: USDTTRC20, to: CASHRUB, cities: [msk] }',
      '  - { from: BTC, to: SBERRUB }',
      '  - { from: CASHRUB, to: CASHRUB, fromfee: x }',
      '  - { from: CASHRUB, to: BTX, chain: [BTC/USDT] }',
      '  - { from: SBERRUB, to: BTC, chain: [USDT/RUB, ETH/USDT], marign: 1% }',
      '',
    ].join('\n');
    const error = await loadError({
      'ratefile.config.yaml': config,
      'templates/parserfile.yaml': 'colour: red\n',
      'templates/reffile.yaml': 'aliases: { USDTTRC2: USDTTRC }\n',
      'templates/affiliatefile.yaml': 'url: "https://x.example/{amount}"\n',
    });
    const expected = [
      'schedule: expected a cron expression like "*/30 * * * * *", got "every minute" (line 1)',
      'sources.backoffice.pth: unknown key (did you mean "path"?) (line 3)',
      'currencies.BTC.precision: expected an integer 0..18, got 19 (line 5)',
      'currencies.SBERRUB.reserve: expected a non-negative decimal like "12.5", got "-5" (line 7)',
      'currencies.MYBANKRUB.asset: required: "MYBANKRUB" is not in the monitors\' code list, so say what it is priced as (e.g. RUB) (line 9)',
      'defaults.margin: expected a percentage between -100% and 100%, got "100%" (line 11)',
      'directions[0].max: expected an amount like "0.01" or "5000 RUB", got "lots" (line 13)',
      'directions[1].params[0]: expected one of manual, juridical, verifying, cardverify, reg, otherin, otherout, got "vip" (line 14)',
      'directions[2].cities[0]: expected a city code in capitals like "MSK", got "msk" (line 15)',
      'directions[3]: duplicate direction BTC → SBERRUB, already at directions[0] (line 16)',
      'directions[4]: from and to are the same currency (CASHRUB) (line 17)',
      'directions[4].fromfee: expected a fee like "0.0005", "1.5%" or "2 USD", got "x" (line 17)',
      'directions[5].to: unknown currency "BTX" (did you mean "BTC"?); expected a key of currencies (line 18)',
      'directions[6].marign: unknown key (did you mean "margin"?) (line 19)',
      'directions[6].chain: chain USDT/RUB * ETH/USDT ends at ETH, expected BTC (line 19)',
      'templates/affiliatefile.yaml: url: expected only the placeholders {from}, {to}, {city}, got "https://x.example/{amount}" (line 1)',
      'templates/parserfile.yaml: colour: unknown key (line 1)',
      'templates/reffile.yaml: aliases.USDTTRC2: unknown currency "USDTTRC2" (did you mean "USDTTRC20"?); expected a key of currencies (line 1)',
    ];
    expect(error.message).toBe('ratefile.config.yaml: 18 problems');
    expectLines(error.details, expected);
    // Config problems come before template problems.
    expect(error.details.slice(-3).every((line) => line.startsWith('templates/'))).toBe(true);
  });
});

describe("the archive's window and budget", () => {
  it('read as durations and sizes, 30 days and 4 GiB unless set', async () => {
    expect((await loads(sampleConfig)).archive).toMatchObject({ windowMs: 30 * 86_400_000, budgetBytes: 4 * 2 ** 30 });
    const set = await loads(`${sampleConfig}archive: { window: 3d, budget: 10MiB }\n`);
    expect(set.archive).toMatchObject({ windowMs: 3 * 86_400_000, budgetBytes: 10 * 2 ** 20 });
    expect((await loads(`${sampleConfig}archive: { budget: 2GB }\n`)).archive.budgetBytes).toBe(2e9);
  });

  it('a budget below 1 MiB or not a size is refused with its line', async () => {
    expectLines(await problems(`${sampleConfig}archive: { budget: 10KB }\n`), [
      'archive.budget: expected a size of 1MiB or more (line 15)',
    ]);
    expect((await problems(`${sampleConfig}archive: { budget: lots }\n`))[0]).toMatch(
      /^archive\.budget: expected a size like "500MB", "2GiB" or a number of bytes/,
    );
  });
});
