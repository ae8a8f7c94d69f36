// The metrics of the streams and of quote age per direction: a few series whatever the number of directions (quantiles
// of the last build's per-direction ages, not one series per direction) and a few per streamed source.
import { Gauge, type Registry } from 'prom-client';
import type { Status } from '../../pure/status/report.js';

const quantiles = [0.5, 0.9, 0.99, 1] as const;

export function streamInstruments(registers: Registry[]) {
  return {
    directionQuoteAge: new Gauge({
      name: 'ratefile_direction_quote_age_seconds',
      // A gauge, not a summary (it is recomputed per build, not observed): so its label is `percentile`, since
      // Prometheus keeps `quantile` for summaries (promtool check metrics refuses it on a gauge).
      help: 'Age of the oldest quote behind each published direction when the last build started: percentiles over the directions (100: the oldest).',
      labelNames: ['percentile'],
      registers,
    }),
    streamLive: new Gauge({
      name: 'ratefile_stream_live',
      help: 'A source in stream mode: 1 while every connection is subscribed and heard from, 0.5 for some, 0 for none (REST feeds it).',
      labelNames: ['source'],
      registers,
    }),
    streamReconnects: new Gauge({
      name: 'ratefile_stream_reconnects',
      help: 'A source in stream mode: connections lost since the service started (each made again with backoff).',
      labelNames: ['source'],
      registers,
    }),
    streamQuotes: new Gauge({
      name: 'ratefile_stream_quotes',
      help: 'A source in stream mode: its quotes in use by what fed them, the stream or REST.',
      labelNames: ['source', 'fed'],
      registers,
    }),
  };
}

type StreamInstruments = ReturnType<typeof streamInstruments>;

/** The q-quantile of sorted values (nearest rank). */
const quantile = (sorted: readonly number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0;

export function recordStreams(m: StreamInstruments, status: Status): void {
  m.directionQuoteAge.reset();
  const ages = [...(status.publishedQuoteAges ?? [])].sort((a, b) => a - b);
  if (ages.length > 0)
    for (const q of quantiles) m.directionQuoteAge.set({ percentile: String(q * 100) }, quantile(ages, q));
  m.streamLive.reset();
  m.streamReconnects.reset();
  m.streamQuotes.reset();
  for (const source of status.sources) {
    const { stream } = source;
    if (!stream) continue;
    m.streamLive.set({ source: source.name }, stream.state === 'live' ? 1 : stream.state === 'partial' ? 0.5 : 0);
    m.streamReconnects.set({ source: source.name }, stream.reconnects);
    for (const fed of ['stream', 'rest'] as const)
      m.streamQuotes.set({ source: source.name, fed }, stream.pairs.filter((pair) => pair.fed === fed).length);
  }
}
