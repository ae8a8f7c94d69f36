// The venues with a stream mode, by source type. Pure.
import { binanceStream } from './binance.js';
import { bybitStream } from './bybit.js';
import type { StreamVenue } from './frame.js';
import { krakenStream } from './kraken.js';
import { okxStream } from './okx.js';

const venues: ReadonlyMap<string, StreamVenue> = new Map(
  [binanceStream, bybitStream, okxStream, krakenStream].map((venue) => [venue.type, venue]),
);

export const streamVenue = (type: string): StreamVenue | undefined => venues.get(type);
