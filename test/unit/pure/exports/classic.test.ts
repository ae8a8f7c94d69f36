// The build's writer (classic files straight from the selection, constant text kept across builds) against the
// plain path (selectExports' items through renderModel) and xmlbuilder2: same bytes, items and withheld directions,
// on randomized directions and templates over several builds that reuse, copy and replace the config's objects.
import { describe, expect, it } from 'vitest';
import type { Label } from '../../../../src/base/config/fields.js';
import { Decimal } from '../../../../src/base/decimal.js';
import { isRatefileError } from '../../../../src/base/errors.js';
import { renderWithXmlbuilder2 } from '../../../support/xmlbuilder2.js';
import { exportWriter, renderModel } from '../../../../src/pure/exports/renderers.js';
import { selectExports } from '../../../../src/pure/exports/select.js';
import type { Currency, Direction, ExportTemplate } from '../../../../src/model/config.js';
import { priceDirections } from '../../../../src/pure/pricing/price.js';
import type { Quote, QuoteBook } from '../../../../src/model/source.js';
import { random, type Next } from '../../../support/random.js';
import { xmlErrors } from '../../../support/xml.js';
import type { PricedDirection } from '../../../../src/model/priced.js';

const time = new Date('2026-11-23T12:00:00Z');
const seed = Number(process.env.CLASSIC_SEED ?? 20261123);

/** The book of one build: every price moved by `factor`, so each build has new rate objects and new numbers. */
function bookAt(factor: string): QuoteBook {
  const pairs = [
    ['BTC/USDT', '97012.37', '97013.89'],
    ['ETH/USDT', '3120.113', '3121.907'],
    ['USDT/RUB', '92.0493', '92.3517'],
    ['EUR/USDT', '1.08437', '1.08519'],
  ] as const;
  return new Map(
    pairs.map(([pair, bid, ask]) => {
      const [base = '', quote = ''] = pair.split('/');
      const quoted: Quote = {
        pair,
        base,
        quote,
        bid: new Decimal(bid).times(factor),
        ask: new Decimal(ask).times(factor),
        time,
        source: 'test',
      };
      return [pair, quoted];
    }),
  );
}

function currency(code: string, asset: string, precision: number, ratePrecision: number, reserve: string): Currency {
  return { code, asset, precision, ratePrecision, reserve: new Decimal(reserve) };
}

// Eight of each kind (BTC, BTC1 … BTC7), so a thousand directions can each be another pair, as a config's are.
const currencies = [
  ['BTC', 'BTC', 8, 8, '4.123456789'],
  ['ETH', 'ETH', 6, 6, '96.5'],
  ['USDTTRC20', 'USDT', 2, 4, '485000.555'],
  ['CARDRUB', 'RUB', 2, 2, '6500000'],
  ['CASHRUB', 'RUB', 0, 2, '25000000.7'],
  ['SEPAEUR', 'EUR', 2, 4, '80000'],
].flatMap(([code, asset, precision, ratePrecision, reserve]) =>
  Array.from({ length: 8 }, (_, k) =>
    currency(`${code}${k === 0 ? '' : k}`, String(asset), Number(precision), Number(ratePrecision), String(reserve)),
  ),
);

// Values that need escaping, entity look-alikes, non-ASCII and astral characters: all legal in XML 1.0.
const texts = ['MSK', 'SPB', 'A&B', '<x>', 'Жк', '𝄞', '&amp;', 'a > b', 'é'];
const fees = ['0.0005', '1.5 %', '2 USD', '0.10', 'R&D <1>'];

function randomDirections(next: Next, count: number): Direction[] {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const maybe = <T>(value: T): T | undefined => (next() < 0.35 ? value : undefined);
  const directions: Direction[] = [];
  const pairs = new Set<string>();
  while (directions.length < count) {
    const [from, to] = [pick(currencies), pick(currencies)];
    if (from.asset === to.asset || pairs.has(`${from.code}>${to.code}`)) continue;
    pairs.add(`${from.code}>${to.code}`);
    const index = directions.length;
    const [minfee, fromfee, tofee, floating] = [
      maybe(pick(fees)),
      maybe(pick(fees)),
      maybe(pick(fees)),
      maybe(pick(['15', '1.5%', '0.5 %'])),
    ];
    const delay = maybe(Math.floor(next() * 60));
    const min = maybe({
      value: new Decimal(pick(['0.001', '20', '500', '3000'])),
      asset: pick([from.asset, to.asset]),
    });
    const max = maybe({ value: new Decimal(pick(['0.5', '10000', '2000000'])), asset: pick([from.asset, to.asset]) });
    directions.push({
      id: `${from.code}>${to.code}`,
      index,
      from,
      to,
      margin: new Decimal(pick(['0', '0.008', '0.015', '-0.002'])),
      // Mostly the currency's reserve object (shared, as a loaded config has it), sometimes a direction's own.
      reserve: next() < 0.7 ? to.reserve : new Decimal(pick(['12.345678901', '77000.5', '0.000001'])),
      ...(min ? { min } : {}),
      ...(max ? { max } : {}),
      params: (next() < 0.4 ? [pick(['verifying', 'reg', 'cardverify', 'a&b<c>'])] : []) as unknown as Label[],
      ...(minfee === undefined ? {} : { minfee }),
      ...(fromfee === undefined ? {} : { fromfee }),
      ...(tofee === undefined ? {} : { tofee }),
      ...(floating === undefined ? {} : { floating }),
      ...(delay === undefined ? {} : { delay }),
      cities: next() < 0.3 ? texts.filter(() => next() < 0.3) : [],
      tags: [pick(['main', 'ref', 'cash'])],
    });
  }
  return directions;
}

function template(name: string, overrides: Partial<ExportTemplate> = {}): ExportTemplate {
  return {
    name,
    file: `${name}.xml`,
    format: 'classic',
    excludeTags: [],
    aliases: {},
    markup: new Decimal(0),
    ...overrides,
  };
}

const templates: ExportTemplate[] = [
  template('all'),
  template('ref', { includeTags: ['ref'], aliases: { USDTTRC20: 'USDTTRC', CASHRUB: 'C&R' } }),
  template('partner', {
    excludeTags: ['cash'],
    markup: new Decimal('0.005'),
    url: 'https://x.example/?from={from}&to={to}&city={city}',
  }),
  template('marked', {
    markup: new Decimal('0.0123'),
    aliases: { BTC: 'B<T>C' },
    url: 'https://x.example/{from}-{to}',
  }),
  template('eref', { format: 'eref-1.1' }),
  template('json', { format: 'json', file: 'json.json' }),
];

/** What a build publishes through each path: bytes as text (a difference reads better), items, withheld reasons. */
function bothPaths(priced: readonly PricedDirection[], chosen: readonly ExportTemplate[]) {
  const write = exportWriter(priced, chosen, directionsOf(priced));
  const written = chosen.map((_, index) => write(index));
  const selected = selectExports(priced, chosen);
  return chosen.map((t, k) => ({
    file: t.file,
    fast: {
      text: written[k]!.bytes.toString('utf8'),
      items: written[k]!.items,
      withheld: written[k]!.withheld.map((w) => `${w.direction.id} ${w.kind}: ${w.reason}`),
    },
    plain: {
      text: renderModel(selected[k]!).toString('utf8'),
      items: selected[k]!.items.length,
      withheld: selected[k]!.withheld.map((w) => `${w.direction.id} ${w.kind}: ${w.reason}`),
    },
    model: selected[k]!,
  }));
}

describe('exportWriter against selectExports + renderModel', () => {
  it('writes the same bytes, items and withheld directions over builds that move prices, copy directions and reload the config', async () => {
    const next = random(seed);
    let directions = randomDirections(next, 1300);
    let chosen = templates;
    const seen = { items: 0, escaped: 0, cities: 0, withheld: 0 };
    for (const [build, factor] of ['1', '1.0031', '0.9968', '1.0031', '1.2'].entries()) {
      if (build === 3) {
        // As a build with reserve sources and paused cities does: some directions are copies with a new reserve or fewer cities.
        directions = directions.map((d) =>
          next() < 0.2
            ? { ...d, reserve: new Decimal(d.reserve.times('0.9').toFixed(3)) }
            : next() < 0.1
              ? { ...d, cities: d.cities.slice(1) }
              : d,
        );
      }
      if (build === 4) {
        // A reloaded config: new objects with other aliases, markups and urls under the same names and files.
        chosen = templates.map((t) => ({
          ...t,
          aliases: { ...t.aliases, ETH: 'ETH&2' },
          markup: t.markup.plus('0.001'),
          ...(t.url ? { url: `${t.url}&v=2` } : {}),
        }));
      }
      const { priced } = priceDirections(directions, bookAt(factor));
      for (const { file, fast, plain } of bothPaths(priced, chosen)) {
        expect(fast.items, `build ${build} ${file}`).toBe(plain.items);
        expect(fast.withheld, `build ${build} ${file}`).toEqual(plain.withheld);
        expect(fast.text, `build ${build} ${file}`).toBe(plain.text);
        seen.items += fast.items;
        seen.escaped += (fast.text.match(/&amp;|&lt;|&gt;/g) ?? []).length;
        seen.cities += (fast.text.match(/<city>/g) ?? []).length;
        seen.withheld += fast.withheld.length;
      }
    }
    // The builds met what they were meant to: many items, escaped text, cash items, directions left out.
    expect(seen.items).toBeGreaterThan(10_000);
    for (const [name, count] of Object.entries(seen)) expect(count, name).toBeGreaterThan(100);
  });

  it('writes what xmlbuilder2 writes for the same items, well-formed per libxml2', async () => {
    const directions = randomDirections(random(seed + 1), 400);
    const classic = templates.filter((t) => t.format === 'classic');
    for (const { file, fast, model } of bothPaths(priceDirections(directions, bookAt('1')).priced, classic)) {
      expect(fast.text, file).toBe(renderWithXmlbuilder2(model));
      expect(await xmlErrors(fast.text, file)).toEqual([]);
    }
  });

  it('escapes & < > in labels, fees, cities, aliases and the url, and an empty export is <rates></rates>', () => {
    const direction = randomDirections(random(1), 1)[0]!;
    const odd: Direction = {
      ...direction,
      params: ['a&b<c>'] as unknown as Label[],
      fromfee: 'R&D <1>',
      cities: ['<M&S>'],
      tags: ['main'],
    };
    const { priced } = priceDirections([odd], bookAt('1'));
    const aliased = template('odd', { aliases: { [odd.from.code]: 'F&<>' }, url: 'https://x.example/?a={from}&b=1' });
    const [written, empty] = [
      exportWriter(priced, [aliased], directionsOf(priced))(0),
      exportWriter(priced, [template('none', { includeTags: ['nothing'] })], directionsOf(priced))(0),
    ];
    const text = written.bytes.toString('utf8');
    expect(text).toContain('<param>a&amp;b&lt;c&gt;</param>');
    expect(text).toContain('<fromfee>R&amp;D &lt;1&gt;</fromfee>');
    expect(text).toContain('<city>&lt;M&amp;S&gt;</city>');
    expect(text).toContain('<from>F&amp;&lt;&gt;</from>');
    expect(text).toContain('<url>https://x.example/?a=F%26%3C%3E&amp;b=1</url>');
    expect(empty.bytes.toString('utf8')).toBe('<?xml version="1.0" encoding="UTF-8"?>\n<rates></rates>\n');
    expect(empty.items).toBe(0);
  });

  it('refuses a url pattern XML 1.0 cannot hold at the first item, naming <url> as the plain path does', () => {
    const directions = randomDirections(random(3), 20).map((d): Direction => ({ ...d, cities: [], tags: ['main'] }));
    const { priced } = priceDirections(directions, bookAt('1'));
    const spoilt = template('all', { url: 'https://x.example/\u0001?a={from}' });
    const message = 'all.xml: cannot render: item 1 <url> has a character XML 1.0 forbids';
    expect(() => renderModel(selectExports(priced, [spoilt])[0]!)).toThrow(message);
    expect(() => exportWriter(priced, [spoilt], directionsOf(priced))(0)).toThrow(message);
  });

  it.each([
    ['a label', (d: Direction): Direction => ({ ...d, params: ['ve\u0001rifying'] as unknown as Label[] }), 'param'],
    ['a city', (d: Direction): Direction => ({ ...d, cities: ['MSK', 'S\uFFFEPB'] }), 'city'],
    ['a fee', (d: Direction): Direction => ({ ...d, tofee: '1\uD800' }), 'tofee'],
  ])(
    'refuses a character XML 1.0 forbids in %s, naming file, item and element as the plain path does, build after build',
    (_, spoil, element) => {
      // Past many chunks (`chunkItems`), so the item's number is counted across chunks.
      const clean = randomDirections(random(5), 1500).map((d): Direction => ({ ...d, cities: [], tags: ['main'] }));
      const target = priceDirections(clean, bookAt('1')).priced[1100]!.direction;
      const spoilt = spoil(target);
      const { priced } = priceDirections(
        clean.map((d) => (d === target ? spoilt : d)),
        bookAt('1'),
      );
      const index = priced.findIndex((p) => p.direction === spoilt);
      expect(index).toBe(1100);
      const item = index + 1 + (element === 'city' ? 1 : 0);
      const message = `all.xml: cannot render: item ${item} <${element}> has a character XML 1.0 forbids`;
      expect(() => renderModel(selectExports(priced, [templates[0]!])[0]!)).toThrow(message);
      // Twice: the second build finds the direction's text kept from the first, and still refuses it.
      for (let build = 0; build < 2; build++) {
        let caught: unknown;
        try {
          exportWriter(priced, [templates[0]!], directionsOf(priced))(0);
        } catch (error) {
          caught = error;
        }
        expect(isRatefileError(caught, 'E_RENDER')).toBe(true);
        expect((caught as Error).message).toBe(message);
      }
    },
  );
});

/** The config's directions of a priced list, in its order: what a build hands the writer for the line formats. */
function directionsOf(priced: readonly PricedDirection[]): Direction[] {
  return priced.map((p) => p.direction);
}
