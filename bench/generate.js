// Generates a big exchanger for benchmarks: N directions over the `file` source, cash ones in several cities.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const coins = ['BTC', 'ETH', 'LTC', 'TRX', 'TON', 'SOL', 'XRP', 'DOGE', 'ADA', 'DOT', 'LINK', 'AVAX', 'ATOM', 'XLM', 'BCH', 'ETC'];
const fiat = ['SBERRUB', 'TCSBRUB', 'CARDRUB', 'SBPRUB', 'ACRUB', 'TBRUB', 'GPBRUB', 'PSBRUB', 'RFBRUB', 'ROSBRUB', 'CASHRUB', 'CASHUSD'];
const cities = ['MSK', 'SPB', 'EKB', 'NSK', 'KZN'];

/**
 * A config with `count` directions: every pair of a generated currency list, both ways, until `count`.
 * Currency codes beyond the real ones are synthetic (asset given), so any size is possible.
 */
export async function writeBenchProject(dir, count) {
  await mkdir(join(dir, 'templates'), { recursive: true });
  const currencies = [];
  const quotes = [];
  for (const coin of coins) quotes.push({ pair: `${coin}/USDT`, bid: '100.123456', ask: '100.223456' });
  quotes.push({ pair: 'USDT/RUB', bid: '93.45', ask: '93.8' }, { pair: 'USDT/USD', bid: '0.9985', ask: '1.001' });
  // Synthetic tokens T0001.. priced against USDT, so the directions list can grow without limit.
  const tokens = Math.max(0, Math.ceil(Math.sqrt(count)) + 2 - coins.length - fiat.length);
  for (let i = 0; i < tokens; i++) {
    const code = `T${String(i).padStart(4, '0')}`;
    currencies.push(`  ${code}: { asset: ${code}, precision: 6, reserve: "1000000" }`);
    quotes.push({ pair: `${code}/USDT`, bid: `${(1 + i / 100).toFixed(4)}`, ask: `${(1.001 + i / 100).toFixed(4)}` });
  }
  for (const coin of coins) currencies.push(`  ${coin}: { precision: 8, reserve: "1000" }`);
  for (const code of fiat) currencies.push(`  ${code}: { precision: 2, reserve: "50000000" }`);
  currencies.push('  USDTTRC20: { precision: 2, ratePrecision: 4, reserve: "5000000" }');
  const codes = [...coins, ...fiat, 'USDTTRC20', ...Array.from({ length: tokens }, (_, i) => `T${String(i).padStart(4, '0')}`)];
  const directions = [];
  outer: for (const from of codes) {
    for (const to of codes) {
      if (from === to || (from.startsWith('CASH') && to.startsWith('CASH'))) continue;
      const cash = to.startsWith('CASH') || from.startsWith('CASH');
      // Cash directions multiply by cities; count items, not entries, toward the target.
      directions.push(`  - { from: ${from}, to: ${to}${cash ? `, cities: [${cities.slice(0, 3).join(', ')}]` : ''}, tags: [${directions.length % 3 === 0 ? 'ref' : 'main'}] }`);
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
  await writeFile(join(dir, 'templates', 'reffile.yaml'), 'include: { tags: [ref] }\naliases: { USDTTRC20: USDTTRC }\n');
  await writeFile(join(dir, 'templates', 'affiliatefile.yaml'), 'markup: 0.5%\nurl: "https://exchanger.example/?cur_from={from}&cur_to={to}"\n');
  return directions.length;
}
