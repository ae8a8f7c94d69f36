// The `exportfile` source: another exchanger's or a liquidity provider's export file (classic or EREF 1.1 XML,
// jsons.info JSON: what ratefile writes and `ratefile check` reads) fetched over HTTP, or read from a local `path`,
// as quotes. Each pair names two of the file's directions: the one selling the base gives the bid (out ÷ in), the one
// buying it the ask (in ÷ out). The file passes through the checker first (src/pure/sources/export-rates.ts; a big
// file in a worker thread: export-read.ts); it is dated by its
// Last-Modified (a local file by its mtime), so a file its owner stopped updating goes stale by `maxAge`.
import { resolve } from 'node:path';
import { z } from 'zod';
import { describeValue, pairText } from '../../base/config/fields.js';
import { readRegularBytes } from '../../base/files.js';
import { maxSourceFileBytes } from './json-file.js';
import { fetchWithRetries, httpTarget, SourceError, type Fetched } from './http.js';
import { commonOptions, httpOptions } from '../../pure/sources/options.js';
import { type ExportRate, rateOf } from '../../pure/sources/export-rates.js';
import { readWantedRates } from './export-read.js';
import { defineSource, type SourceContext } from '../../model/source.js';
import { collectQuotes, priceText, type PairSymbol, quoteFrom } from '../../pure/sources/values.js';

const expected = (what: string) => (issue: { input?: unknown }) =>
  `expected ${what}, got ${describeValue(issue.input)}`;

const directionPattern = /^([A-Z0-9]{2,20})>([A-Z0-9]{2,20})(?:@([A-Z0-9]{2,10}))?$/;
const direction = z
  .string({ error: expected('a direction of the file like "USDTTRC20>SBERRUB" (or "CASHUSD>BTC@MSK")') })
  .regex(directionPattern, {
    error: expected('a direction of the file like "USDTTRC20>SBERRUB" (or "CASHUSD>BTC@MSK")'),
  });

const fileUrl = z.string().refine(
  (value) => {
    try {
      const url = new URL(value);
      return url.protocol === 'http:' || url.protocol === 'https:';
    } catch {
      return false;
    }
  },
  { error: expected('an http(s) URL of the export file'), abort: true },
);

const { baseUrl: _baseUrl, ...requestOptions } = httpOptions;

const options = z
  .strictObject({
    type: z.literal('exportfile'),
    url: fileUrl
      .optional()
      .describe(
        'The export file (XML, EREF 1.1 or jsons.info JSON); RATEFILE_EXPORTFILE_URL replaces its scheme, host and port.',
      ),
    path: z
      .string({ error: expected('a path to the export file') })
      .min(1, { error: expected('a path to the export file') })
      .optional()
      .describe('Or a local export file, relative to the config file (dated by its modification time).'),
    pairs: z
      .record(pairText, z.strictObject({ bid: direction, ask: direction }))
      .refine((pairs) => Object.keys(pairs).length > 0, { error: 'expected at least one pair' })
      .describe(
        'Each pair (BASE/QUOTE) and two directions of the file: bid from the one selling BASE (out ÷ in), ask from the one buying it (in ÷ out).',
      ),
    ...commonOptions,
    ...requestOptions,
  })
  .refine((given) => (given.url === undefined) !== (given.path === undefined), {
    error: 'expected either url or path, the one export file to read',
    path: ['url'],
  });

type ExportfileOptions = z.output<typeof options>;

interface MappedPair extends PairSymbol {
  bid: string;
  ask: string;
}

/** The file over HTTP (bounded like every source's answer) and when it last changed, or from disk and its mtime. */
async function readFile(given: ExportfileOptions, context: SourceContext) {
  if (given.path !== undefined) {
    const path = resolve(context.configDir, given.path);
    let read: Awaited<ReturnType<typeof readRegularBytes>>;
    try {
      read = await readRegularBytes(path, maxSourceFileBytes);
    } catch (cause) {
      throw new SourceError(`${context.name}: cannot read export file ${path}: ${(cause as Error).message}`, { cause });
    }
    const modified = read.stats.mtime < context.now() ? read.stats.mtime : context.now();
    return { where: path, file: { bytes: read.bytes }, time: modified };
  }
  const configured = new URL(given.url ?? '');
  const target = httpTarget('exportfile', configured.origin, given, context);
  const spec = { path: configured.pathname + configured.search, label: `GET ${configured.pathname}` };
  return fetchWithRetries(context, target, spec, (answer) => {
    const file = { bytes: answer.bytes, contentType: answer.contentType, status: answer.status };
    return { where: answer.where, file, time: fileTime(answer, context.now()) };
  });
}

/** When the file last changed (Last-Modified), never later than its fetch; the fetch when it does not say. */
function fileTime(fetched: Fetched, fetchedAt: Date): Date {
  const header = fetched.headers.get('last-modified');
  const time = header === null ? Number.NaN : Date.parse(header);
  return Number.isFinite(time) && time < fetchedAt.getTime() ? new Date(time) : fetchedAt;
}

/** The one item of `wanted` (`FROM>TO`, `FROM>TO@CITY`), or why there is none to read. */
function itemFor(rates: readonly ExportRate[], wanted: string): ExportRate | string | undefined {
  const [, from, to, city] = directionPattern.exec(wanted) ?? [];
  const found = rates.filter(
    (rate) => rate.from === from && rate.to === to && (city === undefined || rate.cities.includes(city)),
  );
  if (found.length === 0) return undefined;
  if (found.length > 1) {
    const cities = found.flatMap((rate) => rate.cities);
    const named = cities.length > 0 ? ` (cities ${[...new Set(cities)].slice(0, 5).join(', ')})` : '';
    return `${wanted} is in ${found.length} items${named}: name one as ${from}>${to}@CITY`;
  }
  return found[0];
}

/** One side's price out of its item: the item's `in` and `out` as prices, refused by the check, or divided. */
function sidePrice(item: ExportRate, wanted: string, way: 'out/in' | 'in/out'): string | { problem: string } {
  const where = `${wanted} (item ${item.index})`;
  for (const [name, value] of [
    ['in', item.in],
    ['out', item.out],
  ] as const) {
    const read = priceText(value);
    if ('problem' in read) return { problem: `${where}: ${name} ${read.problem}` };
  }
  if (item.refused !== undefined) return { problem: `${where}: refused by the check: ${item.refused}` };
  return rateOf(item, way);
}

export const exportfileSource = defineSource({
  type: 'exportfile',
  options,
  defaultRefreshMs: 60_000,
  async fetchQuotes(given, context) {
    const file = await readFile(given, context);
    const directions = Object.values(given.pairs).flatMap(({ bid, ask }) => [bid, ask]);
    // A big file is bounded, checked and read off the main thread, so the service answers meanwhile (export-read.ts).
    const read = await readWantedRates({ ...file.file, directions }, context.signal).catch((cause: unknown) => {
      throw new SourceError(`${context.name}: ${file.where}: ${(cause as Error).message}`, { cause });
    });
    if ('problem' in read) throw new SourceError(`${context.name}: ${file.where}: ${read.problem}`);
    const time = file.time;
    const pairs: MappedPair[] = Object.entries(given.pairs).map(([pair, { bid, ask }]) => {
      const [base = '', quote = ''] = pair.split('/');
      return { pair, base, quote, symbol: `bid ${bid}, ask ${ask}`, bid, ask };
    });
    return collectQuotes(
      pairs,
      file.where,
      (pair) => {
        const bid = itemFor(read.rates, pair.bid);
        const ask = itemFor(read.rates, pair.ask);
        return bid === undefined || ask === undefined ? undefined : { bid, ask };
      },
      (found, pair, label) => {
        if (typeof found.bid === 'string' || typeof found.ask === 'string')
          return `${label}: ${typeof found.bid === 'string' ? found.bid : found.ask}`;
        const bid = sidePrice(found.bid, pair.bid, 'out/in');
        if (typeof bid !== 'string') return `${label}: ${bid.problem}`;
        const ask = sidePrice(found.ask, pair.ask, 'in/out');
        if (typeof ask !== 'string') return `${label}: ${ask.problem}`;
        return quoteFrom(pair.pair, label, { bid: [pair.bid, bid], ask: [pair.ask, ask] }, time);
      },
    );
  },
});
