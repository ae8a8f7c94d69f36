// Generates a big exchanger for benchmarks: N directions over the `file` source, between real monitor codes
// (data/currency-codes.tsv), cash directions in three cities; every asset quoted against USDT.
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

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

/** Writes the project into `dir` and returns how many directions it has. */
export async function writeBenchProject(dir, count) {
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
  const directions = [];
  outer: for (const from of codes) {
    for (const to of codes) {
      if (from.code === to.code || (from.kind === 'cash' && to.kind === 'cash')) continue;
      const cash = from.kind === 'cash' || to.kind === 'cash';
      directions.push(`  - { from: ${from.code}, to: ${to.code}${cash ? `, cities: [${cities.join(', ')}]` : ''}, tags: [${directions.length % 3 === 0 ? 'ref' : 'main'}] }`);
      if (directions.length >= count) break outer;
    }
  }
  const config = [
    'sources:',
    '  feed: { type: file, path: quotes.json }',
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
  await writeFile(join(dir, 'templates', 'parserfile.yaml'), 'description: all\n');
  await writeFile(join(dir, 'templates', 'reffile.yaml'), 'include: { tags: [ref] }\naliases: { USDTTRC20: USDTTRCX }\n');
  await writeFile(join(dir, 'templates', 'affiliatefile.yaml'), 'markup: 0.5%\nurl: "https://exchanger.example/?cur_from={from}&cur_to={to}"\n');
  return directions.length;
}
