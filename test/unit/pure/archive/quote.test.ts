// The signed quote: for random directions and amounts its rate is the published file's (the tier holding the amount
// in an EREF 1.1 export, the item's in a classic one), amounts outside the limits or above the reserve are refused,
// and docs/exports.md's JavaScript verifies it, refuses a forged one and an expired one.
import { readFileSync } from 'node:fs';
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../../src/base/decimal.js';
import { build } from '../../../../src/io/build/build.js';
import { loadConfig } from '../../../../src/io/config/load.js';
import { newSigningKey, signingKeyOf } from '../../../../src/io/archive/key.js';
import { verifyQuote } from '../../../../src/io/archive/quote.js';
import { quoteMessage, quoteOf, type QuoteFields } from '../../../../src/pure/archive/quote.js';
import { sampleConfig, projectsPerTest } from '../../../support/project.js';
import { random } from '../../../support/random.js';

const project = projectsPerTest();
const now = new Date('2026-11-21T12:00:30Z');
const SEED = Number(process.env.QUOTE_SEED ?? 47);

const tieredConfig = `${sampleConfig}  - { from: SBERRUB, to: BTC, min: 10000, margin: 2%, tiers: [{ from: "200000 RUB", margin: 1.5% }, { from: 1000000, margin: 1% }] }
  - { from: USDTTRC20, to: SBERRUB, max: 20000, tiers: [{ from: 5000, margin: 1% }, { from: 10000, margin: 3% }] }
`;

/** docs/exports.md's snippet after its marker, as the page shows it. */
function docsSnippet(marker: string, language: string): string {
  const page = readFileSync(new URL('../../../../docs/exports.md', import.meta.url), 'utf8');
  const at = page.indexOf(`<!-- ${marker} -->`);
  const match = new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\\n\`\`\``).exec(page.slice(at));
  if (at < 0 || !match) throw new Error(`no ${marker} snippet in docs/exports.md`);
  return match[1]!;
}

async function published() {
  const made = await project({
    'ratefile.config.yaml': tieredConfig,
    'templates/rates11.yaml': 'format: eref-1.1\nfile: rates-1.1.xml\n',
  });
  const config = await loadConfig(made.configPath);
  const { files } = await build(config, { now: () => now });
  return new Map(files.map((file) => [file.file, file.bytes.toString('utf8')]));
}

const source = (file: string, text: string) => ({
  file,
  text,
  sha256: 'ab'.repeat(32),
  build: 'b',
  record: 1,
  published: now.toISOString(),
});

/** The items of a file as fast-xml-parser reads them: the reference the quote is checked against. */
function referenceItems(text: string) {
  const parsed = new XMLParser({
    ignoreAttributes: false,
    parseTagValue: false,
    isArray: (name) => name === 'item' || name === 'step',
  }).parse(text);
  return (parsed.rates?.item ?? []) as Record<
    string,
    string | { '@_frommin': string; '@_frommax': string; in: string; out: string }[]
  >[];
}

describe('a quote', () => {
  it(`has the published file's rate for every amount, tiers and limits included (seed ${SEED})`, async () => {
    const files = await published();
    const next = random(SEED);
    let quoted = 0;
    let refused = 0;
    let tiered = 0;
    for (const file of ['rates-1.1.xml', 'parserfile.xml']) {
      const text = files.get(file)!;
      for (const item of referenceItems(text)) {
        const from = item.from as string;
        const to = item.to as string;
        const city = item.city as string | undefined;
        const min = new Decimal((item.frommin ?? item.minamount ?? '0') as string);
        const max = new Decimal((item.frommax ?? item.maxamount ?? '1000000000') as string);
        for (let round = 0; round < 40; round++) {
          // Inside the limits mostly, at their edges, and outside them.
          const roll = next();
          const amount = (
            roll < 0.1
              ? min
              : roll < 0.2
                ? max
                : roll < 0.3
                  ? max.times(1.01)
                  : roll < 0.35
                    ? min.times(0.9)
                    : min.plus(max.minus(min).times(next()))
          )
            .toDecimalPlaces(8, Decimal.ROUND_DOWN)
            .toFixed();
          if (new Decimal(amount).isZero()) continue;
          const answer = quoteOf(
            { from, to, amount, ...(city ? { city } : {}) },
            source(file, text),
            now,
            900_000,
            'key',
          );
          const a = new Decimal(amount);
          const steps = (item.step ?? []) as { '@_frommin': string; '@_frommax': string; in: string; out: string }[];
          const step = steps.find((s) => a.greaterThanOrEqualTo(s['@_frommin']) && a.lessThanOrEqualTo(s['@_frommax']));
          const rate = steps.length > 0 ? step : { in: item.in as string, out: item.out as string };
          const within = a.greaterThanOrEqualTo(min) && a.lessThanOrEqualTo(max) && rate !== undefined;
          const reserve = new Decimal(item.amount as string);
          const paid = rate ? a.times(rate.out).div(rate.in) : undefined;
          if (!within || !paid || paid.greaterThan(reserve)) {
            expect('refused' in answer, `${file} ${from}>${to} ${amount}`).toBe(true);
            refused++;
            continue;
          }
          expect(answer, `${file} ${from}>${to} ${amount}`).toMatchObject({
            fields: { in: rate!.in, out: rate!.out, reserve: item.amount },
          });
          if (steps.length > 0) tiered++;
          quoted++;
        }
      }
    }
    expect(quoted).toBeGreaterThan(200);
    expect(refused).toBeGreaterThan(40);
    expect(tiered).toBeGreaterThan(40);
  });

  it('names the city of a cash direction, and refuses one not published or an amount that is no amount', async () => {
    const files = await published();
    const text = files.get('parserfile.xml')!;
    const ask = (request: Parameters<typeof quoteOf>[0]) =>
      quoteOf(request, source('parserfile.xml', text), now, 900_000, 'k');
    expect(ask({ from: 'USDTTRC20', to: 'CASHRUB', amount: '10' })).toMatchObject({
      status: 400,
      refused: expect.stringMatching(/name a city.*MSK, SPB/),
    });
    expect(ask({ from: 'USDTTRC20', to: 'CASHRUB', amount: '10', city: 'MSK' })).toMatchObject({
      fields: { city: 'MSK' },
    });
    expect(ask({ from: 'BTC', to: 'CASHRUB', amount: '1' })).toMatchObject({
      status: 409,
      refused: 'BTC → CASHRUB is not published in parserfile.xml now',
    });
    for (const amount of ['', '-1', '0', '1e3', 'abc', '1'.repeat(60)])
      expect(ask({ from: 'BTC', to: 'SBERRUB', amount })).toMatchObject({ status: 400 });
  });

  it("verifies with docs/exports.md's JavaScript, and a forged or an expired one does not", async () => {
    const files = await published();
    const { pem, publicKey } = newSigningKey();
    const key = signingKeyOf(pem, 'a test key');
    expect(key.publicKey).toBe(publicKey);
    const answer = quoteOf(
      { from: 'BTC', to: 'SBERRUB', amount: '0.01' },
      source('parserfile.xml', files.get('parserfile.xml')!),
      now,
      900_000,
      key.publicKey,
    );
    if (!('fields' in answer)) throw new Error(answer.refused);
    const quote: QuoteFields & { signature: string } = {
      ...answer.fields,
      signature: key.sign(quoteMessage({ ...answer.fields })),
    };
    const snippet = docsSnippet('quote-verify-js', 'js');
    const { verifyQuote: documented } = (await import(`data:text/javascript,${encodeURIComponent(snippet)}`)) as {
      verifyQuote: (quote: object, key: string, now?: Date) => string;
    };
    const parsed = JSON.parse(JSON.stringify(quote)) as Record<string, string>;
    expect(documented(parsed, publicKey, now)).toBe('ok');
    expect(documented({ ...parsed, out: '9999999' }, publicKey, now)).toBe('bad signature');
    expect(documented({ ...parsed, extra: 'x' }, publicKey, now)).toBe('bad signature');
    expect(documented(parsed, newSigningKey().publicKey, now)).toBe('bad signature');
    expect(documented(parsed, publicKey, new Date(Date.parse(quote.validUntil) + 1000))).toBe('expired');
    // The project's own check agrees.
    expect(verifyQuote(parsed, publicKey, now)).toBeUndefined();
    expect(verifyQuote({ ...parsed, amount: '1' }, publicKey, now)).toBe('the signature does not verify');
    expect(verifyQuote(parsed, publicKey, new Date(Date.parse(quote.validUntil) + 1))).toBe('the quote has expired');
  });
});
