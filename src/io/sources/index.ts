// Registry of rate sources: each lives in its own module; add new ones to this list. No adapter for
// sanctioned venues: a venue of the operator's own choosing is a `json` source.
import { bestchangeSource } from './bestchange.js';
import { binanceSource } from './binance.js';
import { bybitSource } from './bybit.js';
import { cbrSource } from './cbr.js';
import { cbrtSource } from './cbrt.js';
import { cbuSource } from './cbu.js';
import { coingeckoSource } from './coingecko.js';
import { ecbSource } from './ecb.js';
import { exportfileSource } from './exportfile.js';
import { fileSource } from './file.js';
import { jsonSource } from './json.js';
import { krakenSource } from './kraken.js';
import { nbkSource } from './nbk.js';
import { nbuSource } from './nbu.js';
import { okxSource } from './okx.js';
import { kucoinSource } from './kucoin.js';
import { mexcSource } from './mexc.js';
import { htxSource } from './htx.js';
import { bitfinexSource } from './bitfinex.js';
import { whitebitSource } from './whitebit.js';
import { privatbankSource } from './privatbank.js';
import { p2pSource } from './p2p.js';
import type { SourceDefinition } from '../../model/source.js';

const erase = <Options extends { type: string }>(definition: SourceDefinition<Options>) =>
  definition as unknown as SourceDefinition<{ type: string }>;

export const sourceDefinitions: readonly SourceDefinition<{ type: string }>[] = [
  erase(fileSource),
  erase(binanceSource),
  erase(bybitSource),
  erase(okxSource),
  erase(krakenSource),
  erase(coingeckoSource),
  erase(cbrSource),
  erase(ecbSource),
  erase(jsonSource),
  erase(bestchangeSource),
  // More exchanges (docs/sources.md "More exchanges").
  erase(kucoinSource),
  erase(mexcSource),
  erase(htxSource),
  erase(bitfinexSource),
  erase(whitebitSource),
  // Central banks and banks (docs/sources.md "Central banks and banks").
  erase(nbuSource),
  erase(nbkSource),
  erase(cbuSource),
  erase(cbrtSource),
  erase(privatbankSource),
  // P2P markets and another exchanger's export file.
  erase(p2pSource),
  erase(exportfileSource),
];

export function sourceDefinition(type: string): SourceDefinition<{ type: string }> | undefined {
  return sourceDefinitions.find((definition) => definition.type === type);
}
