// A source's stream mode as its options say it (`stream:` on binance, bybit, okx and kraken), with the defaults.
import type { SourceConfig } from '../../model/config.js';
import { streamVenue } from '../../pure/sources/streams/index.js';
import type { StreamVenue } from '../../pure/sources/streams/frame.js';

export const defaultSilenceMs = 5_000;
export const defaultMinIntervalMs = 1_000;
/** The largest frame read: the venues' frames are a few hundred bytes, a subscription's snapshot some kilobytes. */
export const maxFrameBytes = 256 * 1024;

export interface StreamSettings {
  venue: StreamVenue;
  /** The address connected to: the option's `url`, else the venue's; RATEFILE_<TYPE>_STREAM_URL overrides both. */
  url: string;
  silenceMs: number;
  minIntervalMs: number;
  maxFrameBytes: number;
}

export const streamUrlVariable = (type: string) => `RATEFILE_${type.toUpperCase()}_STREAM_URL`;

/** The source's stream settings, or undefined when it is not streamed (no `stream:`, `false`, or no stream mode). */
export function streamSettings(
  source: SourceConfig,
  env: Readonly<Record<string, string | undefined>>,
): StreamSettings | undefined {
  const option = source.options.stream;
  const venue = streamVenue(source.type);
  if (!venue || option === undefined || option === false) return undefined;
  const given = typeof option === 'object' && option !== null ? (option as Record<string, unknown>) : {};
  const number = (value: unknown, fallback: number) => (typeof value === 'number' ? value : fallback);
  const configured = typeof given.url === 'string' ? given.url : venue.url;
  return {
    venue,
    url: env[streamUrlVariable(source.type)] || configured,
    silenceMs: number(given.silence, defaultSilenceMs),
    minIntervalMs: number(given.minInterval, defaultMinIntervalMs),
    maxFrameBytes,
  };
}
