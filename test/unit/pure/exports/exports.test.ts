import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../../../src/io/build/build.js';
import { loadConfig } from '../../../../src/io/config/load.js';
import { Decimal, formatDecimal } from '../../../../src/base/decimal.js';
import { isRatefileError } from '../../../../src/base/errors.js';
import { renderClassic } from '../../../../src/pure/exports/classic.js';
import { renderWithXmlbuilder2 } from '../../../support/xmlbuilder2.js';
import { formatFee } from '../../../../src/pure/exports/direction-fields.js';
import { exportSelector, selectExports } from '../../../../src/pure/exports/select.js';
import type { Config, ExportTemplate } from '../../../../src/model/config.js';
import { priceDirections } from '../../../../src/pure/pricing/price.js';
import { fetchQuotes } from '../../../../src/io/quotes/quotes.js';
import { makeProject, sampleConfig, type Project } from '../../../support/project.js';
import { xmlErrors } from '../../../support/xml.js';
import { itemElements, type ExportItem } from '../../../../src/model/items.js';

const now = () => new Date('2026-11-21T12:00:30Z');

let project: Project;
let config: Config;

beforeAll(async () => {
  project = await makeProject();
  config = await loadConfig(project.configPath);
});
afterAll(() => project.remove());

function template(overrides: Partial<ExportTemplate> = {}): ExportTemplate {
  return {
    name: 'test',
    file: 'test.xml',
    format: 'classic',
    excludeTags: [],
    aliases: {},
    markup: new Decimal(0),
    ...overrides,
  };
}

async function sampleBook() {
  return (await fetchQuotes(config.sources, { configDir: config.dir, fetch, now })).book;
}

async function pricedSample() {
  return priceDirections(config.directions, await sampleBook()).priced;
}

describe('the three sample exports', () => {
  it('render as the stored snapshots, well-formed per libxml2', async () => {
    const { files } = await build(config, { now });
    expect(files.map((file) => file.file)).toEqual(['affiliatefile.xml', 'parserfile.xml', 'reffile.xml']);
    for (const file of files) {
      const text = file.bytes.toString('utf8');
      expect(await xmlErrors(text, file.file)).toEqual([]);
      await expect(text).toMatchFileSnapshot(`../../../fixtures/snapshots/sample/${file.file}`);
    }
  });

  it('are written byte for byte as xmlbuilder2 writes them', async () => {
    const models = selectExports(await pricedSample(), config.exports);
    expect(models.map((model) => model.items.length)).toEqual([3, 5, 4]);
    for (const model of models) expect(renderClassic(model).toString('utf8')).toBe(renderWithXmlbuilder2(model));
  });

  it('are byte-identical for the same input and clock', async () => {
    const first = await build(config, { now });
    const second = await build(config, { now });
    expect(second.files.map((f) => f.bytes.toString('hex'))).toEqual(first.files.map((f) => f.bytes.toString('hex')));
  });
});

describe('renderClassic', () => {
  const item: ExportItem = { from: 'BTC', to: 'SBERRUB', in: '1', out: '8800810.33', amount: '5000000' };

  it('writes the XML 1.0 declaration, root <rates> and each element on its own line', () => {
    expect(renderClassic({ name: 'x', file: 'x.xml', items: [item] }).toString('utf8')).toBe(
      [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<rates>',
        '  <item>',
        '    <from>BTC</from>',
        '    <to>SBERRUB</to>',
        '    <in>1</in>',
        '    <out>8800810.33</out>',
        '    <amount>5000000</amount>',
        '  </item>',
        '</rates>',
        '',
      ].join('\n'),
    );
  });

  it('renders an empty export as <rates></rates>', () => {
    expect(renderClassic({ name: 'x', file: 'x.xml', items: [] }).toString('utf8')).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<rates></rates>\n',
    );
  });

  it('writes elements in the monitors’ order whatever order the item has', () => {
    const full = Object.fromEntries(
      [...itemElements].reverse().map((name) => [name, `v-${name}`]),
    ) as unknown as ExportItem;
    const names = [
      ...renderClassic({ name: 'x', file: 'x.xml', items: [full] })
        .toString('utf8')
        .matchAll(/^ {4}<(\w+)>/gm),
    ].map((m) => m[1]);
    expect(names).toEqual([...itemElements]);
  });

  it('escapes & < > in every element, and libxml2 reads the text back intact', async () => {
    const nasty = 'A&B <C> "D"';
    const full = Object.fromEntries(itemElements.map((name) => [name, nasty])) as unknown as ExportItem;
    const xml = renderClassic({ name: 'x', file: 'x.xml', items: [full] }).toString('utf8');
    expect(await xmlErrors(xml)).toEqual([]);
    for (const name of itemElements) expect(xml).toContain(`<${name}>A&amp;B &lt;C&gt; "D"</${name}>`);
  });

  it('refuses characters XML 1.0 forbids instead of writing them', () => {
    let caught: unknown;
    try {
      renderClassic({ name: 'x', file: 'x.xml', items: [{ ...item, city: 'M\u0001SK' }] });
    } catch (error) {
      caught = error;
    }
    expect(isRatefileError(caught, 'E_RENDER')).toBe(true);
    expect((caught as Error).message).toMatch(/^x\.xml: cannot render/);
  });
});

describe('selectExports: templates', () => {
  it('one export at a time (as a build selects them), in any order, equals all at once and each template alone', async () => {
    const priced = await pricedSample();
    const templates = [
      template({ name: 'a', markup: new Decimal('0.005') }),
      template({ name: 'b', includeTags: ['ref'] }),
      template({ name: 'c', markup: new Decimal('0.005'), aliases: { USDTTRC20: 'X' } }),
    ];
    const together = selectExports(priced, templates);
    const select = exportSelector(priced, templates);
    const oneByOne = [2, 0, 1]
      .map((index) => [index, select(index)] as const)
      .sort(([a], [b]) => a - b)
      .map(([, selection]) => selection);
    expect(oneByOne).toEqual(together);
    expect(templates.map((t) => selectExports(priced, [t])[0])).toEqual(together);
    expect(together.map((s) => s.items.length)).toEqual([5, 4, 5]);
  });

  it('selects by included tags and leaves out excluded ones', async () => {
    const priced = await pricedSample();
    const [included, excluded] = selectExports(priced, [
      template({ includeTags: ['ref'] }),
      template({ excludeTags: ['cash'] }),
    ]);
    expect(included?.items.map((i) => `${i.from}>${i.to}`)).toEqual([
      'BTC>SBERRUB',
      'BTC>USDTTRC20',
      'USDTTRC20>CASHRUB',
      'USDTTRC20>CASHRUB',
    ]);
    expect(excluded?.items.map((i) => `${i.from}>${i.to}`)).toEqual([
      'BTC>SBERRUB',
      'BTC>USDTTRC20',
      'SBERRUB>USDTTRC20',
    ]);
  });

  it('publishes aliases in place of codes', async () => {
    const [model] = selectExports(await pricedSample(), [template({ aliases: { USDTTRC20: 'USDTTRC' } })]);
    expect(model?.items.map((i) => `${i.from}>${i.to}`)).toEqual([
      'BTC>SBERRUB',
      'BTC>USDTTRC',
      'SBERRUB>USDTTRC',
      'USDTTRC>CASHRUB',
      'USDTTRC>CASHRUB',
    ]);
  });

  it('makes one item per city of a cash direction', async () => {
    const [model] = selectExports(await pricedSample(), [template()]);
    expect(model?.items.filter((i) => i.to === 'CASHRUB').map((i) => i.city)).toEqual(['MSK', 'SPB']);
  });

  it('applies the partner markup against the client on top of the rate', async () => {
    const priced = await pricedSample();
    const [plain, marked] = selectExports(priced, [template(), template({ markup: new Decimal('0.005') })]);
    // BTC→SBERRUB: 97012.30 × 92.10 × 0.985, then × 0.995 for the partner, rounded down to kopecks
    expect(plain?.items[0]?.out).toBe('8800810.33');
    expect(marked?.items[0]?.out).toBe('8756806.28');
    // SBERRUB→USDTTRC20 is quoted as in:1; the markup raises `in`
    expect(plain?.items[2]?.in).toBe('93.76');
    expect(marked?.items[2]?.in).toBe('94.23');
  });

  it('gives directions that share one rate object their own precision, reserve and limits', async () => {
    const book = await sampleBook();
    const first = config.directions[0]!;
    const { to } = first;
    // A direction between currencies of the same assets and margin: priced together, it shares the rate object.
    const twinDirection = {
      ...first,
      id: 'twin',
      to: { ...to, ratePrecision: 0, precision: 0 },
      reserve: new Decimal('123456.789'),
    };
    const priced = priceDirections([first, twinDirection, ...config.directions.slice(1)], book).priced;
    expect(priced[1]?.rate).toBe(priced[0]?.rate);
    const templates = [template(), template({ markup: new Decimal('0.005') })];
    const together = selectExports(priced, templates);
    const alone = priced.map((p) => selectExports([p], templates));
    templates.forEach((_, k) => expect(together[k]?.items).toEqual(alone.flatMap((models) => models[k]!.items)));
    expect(together[0]?.items[1]).toMatchObject({ out: '8800810', amount: '123456' });
    // The twin's reserve caps its maximum: 123456 RUB at 8800810 RUB per BTC.
    expect(together[0]?.items[1]?.maxamount).toBe(
      formatDecimal(new Decimal(123456).div(8800810).toDecimalPlaces(8, Decimal.ROUND_DOWN)),
    );
    expect(together[0]?.items[1]?.maxamount).not.toBe(together[0]?.items[0]?.maxamount);
  });

  it('fills the url pattern with the published codes, URL-encoded, and the city', async () => {
    const [model] = selectExports(await pricedSample(), [
      template({
        aliases: { USDTTRC20: 'USDTTRC' },
        url: 'https://exchanger.example/?cur_from={from}&cur_to={to}&city={city}',
      }),
    ]);
    expect(model?.items.map((i) => i.url)).toEqual([
      'https://exchanger.example/?cur_from=BTC&cur_to=SBERRUB&city=',
      'https://exchanger.example/?cur_from=BTC&cur_to=USDTTRC&city=',
      'https://exchanger.example/?cur_from=SBERRUB&cur_to=USDTTRC&city=',
      'https://exchanger.example/?cur_from=USDTTRC&cur_to=CASHRUB&city=MSK',
      'https://exchanger.example/?cur_from=USDTTRC&cur_to=CASHRUB&city=SPB',
    ]);
  });

  it('writes limits in the from currency at the published rate: min rounded up, max rounded down and capped by the <amount>', async () => {
    const [model] = selectExports(await pricedSample(), [template()]);
    const [btcSber, , sberUsdt, cash] = model?.items ?? [];
    expect(btcSber).toMatchObject({ minamount: '0.001', maxamount: '0.05681295' }); // 500000 RUB / 8800810.33
    // <amount>100000 USDT × the published in 93.76: the most that buys no more than the reserve
    expect(sberUsdt).toMatchObject({
      in: '93.76',
      minamount: '5000',
      maxamount: '9376000',
      param: 'manual',
      fromfee: '1 %',
    });
    // <amount>3000000 RUB ÷ the published out 90 (CASHRUB has no decimals), not ÷ the unrounded 90.7185…
    expect(cash).toMatchObject({ out: '90', maxamount: '33333.33' });
    expect(cash?.minamount).toBeUndefined();
  });

  it("publishes each export's limits at its own rate, a partner markup included", async () => {
    const [plain, marked] = selectExports(await pricedSample(), [
      template(),
      template({ markup: new Decimal('0.005') }),
    ]);
    // max 500000 RUB: at the partner's lower out 8756806.28 it takes more BTC, and pays no more than 500000 RUB
    expect(plain?.items[0]).toMatchObject({ out: '8800810.33', maxamount: '0.05681295' });
    expect(marked?.items[0]).toMatchObject({ out: '8756806.28', maxamount: '0.05709844' });
    expect(new Decimal('0.05709844').times('8756806.28').lessThanOrEqualTo(500000)).toBe(true);
    expect(new Decimal('0.05709845').times('8756806.28').greaterThan(500000)).toBe(true);
  });

  it('leaves a direction out of the one export whose rate makes its limits cross, with the reason in the build report', async () => {
    // min 500000 RUB is 0.05681296 BTC at the plain rate, under the max of 0.0569 BTC; at the partner's
    // 0.5% lower rate it is 0.05709845 BTC, above it.
    const crossing = await makeProject({
      'ratefile.config.yaml': sampleConfig.replace('min: 0.001, max: "500000 RUB"', 'min: "500000 RUB", max: 0.0569'),
    });
    try {
      const { files, report } = await build(await loadConfig(crossing.configPath), { now });
      const text = (file: string) => files.find((f) => f.file === file)?.bytes.toString('utf8') ?? '';
      expect(text('parserfile.xml')).toMatch(
        /<from>BTC<\/from>\s*<to>SBERRUB<\/to>[\s\S]*?<minamount>0\.05681296<\/minamount>\s*<maxamount>0\.0569<\/maxamount>/,
      );
      expect(text('affiliatefile.xml')).not.toMatch(/<from>BTC<\/from>\s*<to>SBERRUB<\/to>/);
      expect(report.withheld.map((w) => `${w.direction.id}: ${w.reason}`)).toEqual([
        'BTC>SBERRUB: affiliatefile.xml: minimum 0.05709845 BTC is above the maximum 0.0569 BTC',
      ]);
    } finally {
      await crossing.remove();
    }
  });
});

describe('formatFee', () => {
  it.each([
    ['1%', '1 %'],
    ['1.50 %', '1.5 %'],
    ['0.00050', '0.0005'],
    ['2 USD', '2 USD'],
  ])('%s → %s', (input, output) => {
    expect(formatFee(input)).toBe(output);
  });
});
