// Generates a big exchanger for benchmarks: N directions over the `file` source, between real monitor codes
// (data/currency-codes.tsv), cash directions in three cities; every asset quoted against USDT.
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { zipSync, strToU8 } from 'fflate';

const codes = readFileSync(new URL('../data/currency-codes.tsv', import.meta.url), 'utf8')
  .split('\n')
  .slice(1)
  .filter(Boolean)
  .map((line) => {
    const [code = '', , kind = '', asset = ''] = line.split('\t');
    return { code, kind, asset };
  });
const cities = ['MSK', 'SPB', 'EKB'];

/** A deterministic price per asset, so runs compare. */
function priceOf(asset, index) {
  if (asset === 'USDT' || asset === 'USD' || asset === 'USDC') return 1;
  return Number((0.05 + ((index * 7919) % 100000) / 97).toFixed(4));
}

/** The assets of crypto codes (not stablecoins): the legs that move most often on a real exchanger. */
export const cryptoAssets = new Set(codes.filter((c) => c.kind === 'crypto').map((c) => c.asset));

/** The quotes moved by a factor, as decimal text of six places (the other sources of a consensus, the cycles' moves). */
export const movedQuotes = (quotes, factor) =>
  quotes.map((q) => ({ ...q, bid: (Number(q.bid) * factor).toFixed(6), ask: (Number(q.ask) * factor).toFixed(6) }));

/** Every how many directions one competes in the BestChange field (`compete:`), when the project has a feed. */
const competeEvery = 10;

/**
 * A BestChange info.zip for the competing directions: five exchangers each, 1–3% below the market (the
 * 11-field layout; codes and names are ASCII, so windows-1251 is the same bytes).
 */
function bestChangeDump(competing, priceOfCode) {
  const ids = new Map();
  const id = (code) => ids.get(code) ?? ids.set(code, ids.size + 1).get(code);
  const rows = [];
  for (const [from, to] of competing) {
    const market = priceOfCode(from) / priceOfCode(to);
    for (let exchanger = 1; exchanger <= 5; exchanger++) {
      const get = market * (1 - (0.01 + exchanger * 0.004));
      // give;get as BestChange writes them: 1 : X when X ≥ 1, else X : 1.
      const [give, got] = get >= 1 ? [1, get] : [1 / get, 1];
      rows.push(
        `${id(from)};${id(to)};${exchanger};${give.toPrecision(10)};${got.toPrecision(10)};1000000;0.1;0;0;0;0`,
      );
    }
  }
  return zipSync({
    'bm_cycodes.dat': strToU8([...ids].map(([code, n]) => `${n};${code}`).join('\n')),
    'bm_exch.dat': strToU8([1, 2, 3, 4, 5].map((n) => `${n};Rival${n};;0;${n * 100}`).join('\n')),
    'bm_cities.dat': strToU8(''),
    'bm_info.dat': strToU8('last_update=12:00:00, 21 ноября\ncurrent_version=2.02\n'),
    'bm_rates.dat': strToU8(rows.join('\r\n')),
  });
}

/**
 * Writes the project into `dir` and returns how many directions it has. With `bestchange`, the config has a
 * `bestchange` source (refresh 30 s, BestChange's least) and every tenth non-cash direction competes in its
 * field; the feed to serve is written to `dir/info.zip`. With `consensus`, two more file sources quote every pair a
 * little apart (quotes2.json, quotes3.json) and `rates:` makes every pair the median of the three.
 */
export async function writeBenchProject(dir, count, { bestchange = false, consensus = false } = {}) {
  await mkdir(join(dir, 'templates'), { recursive: true });
  const assets = [...new Set(codes.map((c) => c.asset))];
  const quotes = assets
    .filter((asset) => asset !== 'USDT')
    .map((asset, index) => {
      const price = priceOf(asset, index + 1);
      return { pair: `${asset}/USDT`, bid: price.toFixed(6), ask: (price * 1.0005).toFixed(6) };
    });
  const currencies = codes.map(({ code, kind }) => {
    const crypto = kind === 'crypto';
    return `  ${code}: { precision: ${crypto ? 8 : 2}, ratePrecision: ${crypto ? 8 : 4}, reserve: "${crypto ? '1000' : '50000000'}" }`;
  });
  const priceOfAsset = new Map([['USDT', 1], ...quotes.map((q) => [q.pair.split('/')[0], Number(q.bid)])]);
  const assetOf = new Map(codes.map((c) => [c.code, c.asset]));
  const priceOfCode = (code) => priceOfAsset.get(assetOf.get(code)) ?? 1;
  const competing = [];
  const directions = [];
  outer: for (const from of codes) {
    for (const to of codes) {
      if (from.code === to.code || (from.kind === 'cash' && to.kind === 'cash')) continue;
      const cash = from.kind === 'cash' || to.kind === 'cash';
      const competes = bestchange && !cash && directions.length % competeEvery === 0;
      if (competes) competing.push([from.code, to.code]);
      const compete = competes ? ', compete: { place: 2, floor: 0.5%, ceiling: 3% }' : '';
      directions.push(
        `  - { from: ${from.code}, to: ${to.code}${cash ? `, cities: [${cities.join(', ')}]` : ''}, tags: [${directions.length % 3 === 0 ? 'ref' : 'main'}]${compete} }`,
      );
      if (directions.length >= count) break outer;
    }
  }
  const config = [
    'sources:',
    '  feed: { type: file, path: quotes.json }',
    ...(consensus
      ? ['  feed2: { type: file, path: quotes2.json }', '  feed3: { type: file, path: quotes3.json }']
      : []),
    ...(bestchange ? ['  bc: { type: bestchange, refresh: 30s, maxAge: 5m }'] : []),
    ...(consensus
      ? ['rates:', ...quotes.map((q) => `  ${q.pair}: { sources: [feed, feed2, feed3], spread: 5% }`)]
      : []),
    'currencies:',
    ...currencies,
    'defaults:',
    '  margin: 1.5%',
    '  min: "20 USDT"',
    '  params: [verifying]',
    'directions:',
    ...directions,
    '',
  ].join('\n');
  await writeFile(join(dir, 'ratefile.config.yaml'), config);
  await writeFile(join(dir, 'quotes.json'), JSON.stringify({ quotes }));
  if (consensus)
    for (const [file, factor] of [
      ['quotes2.json', 1.0003],
      ['quotes3.json', 0.9998],
    ])
      await writeFile(join(dir, file), JSON.stringify({ quotes: movedQuotes(quotes, factor) }));
  if (bestchange) await writeFile(join(dir, 'info.zip'), bestChangeDump(competing, priceOfCode));
  await writeFile(join(dir, 'templates', 'parserfile.yaml'), 'description: all\n');
  await writeFile(
    join(dir, 'templates', 'reffile.yaml'),
    'include: { tags: [ref] }\naliases: { USDTTRC20: USDTTRCX }\n',
  );
  await writeFile(
    join(dir, 'templates', 'affiliatefile.yaml'),
    'markup: 0.5%\nurl: "https://exchanger.example/?cur_from={from}&cur_to={to}"\n',
  );
  return directions.length;
}

// `node bench/generate.js DIR COUNT [--bestchange]`: the same project written by a process of its own, so that a
// bench measuring the service's memory does not also hold the generator's.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [dir, count, flag] = process.argv.slice(2);
  console.log(await writeBenchProject(dir, Number(count), { bestchange: flag === '--bestchange' }));
}
