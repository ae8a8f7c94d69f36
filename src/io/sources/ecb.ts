// The `ecb` source: ECB euro reference rates, GET /stats/eurofxref/eurofxref-daily.xml: Cube elements in the
// eurofxref namespace, foreign units per 1 EUR. Pairs are EUR/XXX; bid = ask = the reference rate. No RUB since 2022.
import { z } from 'zod';
import { pairText } from '../../base/config/fields.js';
import { httpTarget, SourceError } from './http.js';
import { httpOptions } from '../../pure/sources/options.js';
import { defineSource } from '../../model/source.js';
import { collectQuotes, endOfDay, isRecord, pairSymbols, priceText, shown } from '../../pure/sources/values.js';
import { getXml } from './xml.js';

const path = '/stats/eurofxref/eurofxref-daily.xml';
export const ecbNamespace = 'http://www.ecb.int/vocabulary/2002-08-01/eurofxref';
const dayMs = 86_400_000;
/** The longest a reference rate may lag (Easter and Christmas close TARGET for four days). */
const maxLagDays = 15;

const list = (value: unknown): Record<string, unknown>[] => (Array.isArray(value) ? value.filter(isRecord) : []);

/**
 * The `Cube` element name in the ECB namespace, by the root's declarations: `Cube` when it is the default
 * namespace (as the ECB writes it), `p:Cube` when bound to a prefix; undefined when the document is not ECB's.
 */
function cubeName(root: Record<string, unknown>): string | undefined {
  for (const [key, value] of Object.entries(root)) {
    if (value !== ecbNamespace) continue;
    if (key === '@_xmlns') return 'Cube';
    if (key.startsWith('@_xmlns:')) return `${key.slice('@_xmlns:'.length)}:Cube`;
  }
  return undefined;
}

export const ecbSource = defineSource({
  type: 'ecb',
  options: z.strictObject({
    type: z.literal('ecb'),
    pairs: z
      .array(
        pairText.refine((pair) => pair.startsWith('EUR/'), {
          error: (issue) => `expected a pair of EUR like "EUR/USD", got ${shown(issue.input)}`,
        }),
      )
      .min(1, { error: 'expected at least one pair' })
      .optional()
      .describe('Pairs to take, EUR/XXX (default: every currency in the file).'),
    ...httpOptions,
  }),
  defaultRefreshMs: 3_600_000,
  async fetchQuotes(options, context) {
    const target = httpTarget('ecb', 'https://www.ecb.europa.eu', options, context);
    const { where, body } = await getXml(
      context,
      target,
      { path },
      (name) => name === 'Cube' || name.endsWith(':Cube'),
    );
    const fail = (problem: string) => new SourceError(`${context.name}: ${where}: ${problem}`);
    const rootName = isRecord(body) ? Object.keys(body).find((key) => !key.startsWith('?')) : undefined;
    const root = rootName !== undefined && isRecord(body) ? body[rootName] : undefined;
    if (!isRecord(root)) throw fail('expected an XML document with a root element');
    const cube = cubeName(root);
    if (!cube) throw fail(`the document is not in the ECB eurofxref namespace (${ecbNamespace})`);
    // Envelope > Cube > Cube time="…" > Cube currency="…" rate="…"
    const days = list(root[cube]).flatMap((outer) => list(outer[cube]));
    const day = days[0];
    if (!day || days.length !== 1) throw fail(`expected one day of rates, found ${days.length}`);
    const time = typeof day['@_time'] === 'string' ? day['@_time'] : '';
    const date = /^\d{4}-\d{2}-\d{2}$/.test(time) ? Date.parse(`${time}T00:00:00Z`) : Number.NaN;
    if (Number.isNaN(date)) throw fail(`Cube time ${shown(day['@_time'])} is not a date like 2026-11-20`);
    const now = context.now();
    if (date < now.getTime() - maxLagDays * dayMs || date > now.getTime() + dayMs)
      throw fail(`the reference rates of ${time} are not current ones`);
    // Published about 16:00 CET for that TARGET day, and current until the next one: its age counts from the end of its day in Frankfurt.
    const dated = endOfDay(time, 'Europe/Berlin', now);
    const rates = new Map<string, unknown>();
    for (const entry of list(day[cube])) {
      if (typeof entry['@_currency'] === 'string' && !rates.has(entry['@_currency']))
        rates.set(entry['@_currency'], entry['@_rate']);
    }
    if (rates.size === 0) throw fail('no rates in the document');
    const pairs = pairSymbols(
      options.pairs ?? [...rates.keys()].filter((code) => /^[A-Z]{3}$/.test(code)).map((code) => `EUR/${code}`),
      (_base, quote) => quote,
    );
    return collectQuotes(
      pairs,
      where,
      (pair) => (rates.has(pair.quote) ? { rate: rates.get(pair.quote) } : undefined),
      (entry, pair, label) => {
        const rate = priceText(entry.rate);
        return 'problem' in rate
          ? `${label}: rate ${rate.problem}`
          : { pair: pair.pair, bid: rate.text, ask: rate.text, time: dated };
      },
    );
  },
});
