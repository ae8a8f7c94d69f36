// The signed quote: for random directions and amounts its rate is the published file's (the tier holding the amount
// in an EREF 1.1 export, the item's in a classic one), amounts outside the limits or above the reserve are refused,
// and docs/exports.md's JavaScript verifies it, refuses a forged one and an expired one.
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../../src/base/decimal.js';
import { verifyQuote } from '../../../../src/io/archive/quote.js';
import { quoteOf } from '../../../../src/pure/archive/quote.js';
import { projectsPerTest } from '../../../support/project.js';
import { random } from '../../../support/random.js';
import {
  docsSnippet,
  publishedFiles,
  quoteNow as now,
  quoteSource as source,
  signedQuote,
  verifyCases,
} from '../../../support/signed-quote.js';

const project = projectsPerTest();
const SEED = Number(process.env.QUOTE_SEED ?? 47);
const published = () => publishedFiles(project);

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
    const signed = await signedQuote(project);
    const snippet = docsSnippet('quote-verify-js', 'js');
    const { verifyQuote: documented } = (await import(`data:text/javascript,${encodeURIComponent(snippet)}`)) as {
      verifyQuote: (quote: object, key: string, now?: Date) => string;
    };
    for (const { name, quote, publicKey, now: at, expected } of verifyCases(signed))
      expect(documented(quote, publicKey, at), name).toBe(expected);
    // The project's own check agrees.
    const { quote, publicKey } = signed;
    expect(verifyQuote(quote, publicKey, now)).toBeUndefined();
    expect(verifyQuote({ ...quote, amount: '1' }, publicKey, now)).toBe('the signature does not verify');
    expect(verifyQuote(quote, publicKey, new Date(Date.parse(quote.validUntil!) + 1))).toBe('the quote has expired');
  });
});
