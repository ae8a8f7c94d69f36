// The monitors' currency and city code lists, shipped in data/ (see data/README.md for their origin).
import { readFileSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from './publish.js';

export interface KnownCurrency {
  code: string;
  name: string;
  kind: string;
  asset: string;
}

export interface KnownCity {
  code: string;
  name: string;
  country: string;
}

function readTsv(file: string): string[][] {
  const text = readFileSync(new URL(`../data/${file}`, import.meta.url), 'utf8');
  return text
    .split('\n')
    .slice(1)
    .filter((line) => line !== '')
    .map((line) => line.split('\t'));
}

let currencies: Map<string, KnownCurrency> | undefined;
let cities: Map<string, KnownCity> | undefined;

export function knownCurrencies(): ReadonlyMap<string, KnownCurrency> {
  currencies ??= new Map(readTsv('currency-codes.tsv').map(([code = '', name = '', kind = '', asset = '']) => [code, { code, name, kind, asset }]));
  return currencies;
}

export function knownCities(): ReadonlyMap<string, KnownCity> {
  cities ??= new Map(readTsv('city-codes.tsv').map(([code = '', name = '', country = '']) => [code, { code, name, country }]));
  return cities;
}

/**
 * The live code list: the currency codes of the last BestChange feed (bm_cycodes.dat) a build read, kept in the
 * state folder so config warnings (on every load) count them as known too. Empty when no feed was ever read.
 */
const liveCodesFile = (stateDir: string) => join(stateDir, 'codes.json');

export async function readLiveCodes(stateDir: string): Promise<ReadonlySet<string>> {
  try {
    const data = JSON.parse(await readFile(liveCodesFile(stateDir), 'utf8')) as { version?: unknown; codes?: unknown };
    return new Set(data.version === 1 && Array.isArray(data.codes) ? data.codes.filter((code): code is string => typeof code === 'string') : []);
  } catch {
    // Missing or unreadable: only the shipped list counts, as before any feed was read.
    return new Set();
  }
}

/** Record the live list when it differs from the one recorded (a feed's list rarely changes: no write per build). */
export async function writeLiveCodes(stateDir: string, codes: ReadonlySet<string>): Promise<void> {
  const known = await readLiveCodes(stateDir);
  if (known.size === codes.size && [...codes].every((code) => known.has(code))) return;
  await mkdir(stateDir, { recursive: true });
  await writeFileAtomic(liveCodesFile(stateDir), `${JSON.stringify({ version: 1, codes: [...codes].sort() })}\n`);
}
