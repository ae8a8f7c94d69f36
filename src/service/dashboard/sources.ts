// The Sources table's rows: each quote source's state, the age of its quotes against its maxAge, and its problem said
// once (problems.ts), in the words of the page. Pure: the build's report, the status and the clock in.
import type { BuildReport, Status } from '../../pure/status/report.js';
import { age, plural } from '../../base/words.js';
import { problemText } from './problems.js';

export interface SourceView {
  name: string;
  type: string;
  /** ok, failing, failing but its last good quotes stand in (`fallback`), or answering with quotes past its maxAge (`stale`). */
  state: 'ok' | 'failing' | 'fallback' | 'stale';
  count: string;
  lastSuccessAt?: string;
  /**
   * Age of the oldest quote of it a published direction uses (of all its quotes when none is used: every direction
   * needing them may be held back for their age), its maxAge, and the time left (s, negative: passed); maxAge null: off.
   */
  quoteAgeSeconds?: number;
  maxAgeSeconds?: number | null;
  leftSeconds?: number;
  problem?: string;
  /** A source in stream mode: `live, 12 by stream, 0 by REST, 3 reconnects`. */
  stream?: string;
}

const seconds = (ms: number) => Math.round(ms / 1000);

export interface SourceLimits {
  maxAge: (source: string) => number | null | undefined;
  hint: (source: string) => string | undefined;
}

export function sourceViews(
  report: BuildReport,
  status: Status | undefined,
  now: Date,
  limits: SourceLimits,
  text: (value: string) => string,
): SourceView[] {
  // The oldest quote of each source that a published direction uses: the one that passes its maxAge first.
  const oldest = new Map<string, number>();
  for (const priced of report.priced)
    for (const step of priced.steps)
      oldest.set(step.quote.source, Math.min(oldest.get(step.quote.source) ?? Infinity, step.quote.time.getTime()));
  return report.sources.map((source) => {
    const lastSuccessAt = status?.sources.find((s) => s.name === source.name)?.lastSuccessAt;
    // None used: all may be held back for their age, so the source's own oldest quote says how it stands.
    const time = oldest.get(source.name) ?? source.quoteTimes?.oldest.getTime();
    const limit = limits.maxAge(source.name);
    const ageMs = time === undefined ? undefined : now.getTime() - time;
    const newest = source.quoteTimes ? now.getTime() - source.quoteTimes.newest.getTime() : undefined;
    // Answering, but with quotes past maxAge: the directions needing them are (or at the next build will be) held back.
    const stale =
      source.ok &&
      typeof limit === 'number' &&
      ((ageMs !== undefined && ageMs > limit) || (newest !== undefined && newest > limit));
    const staleText = !stale
      ? undefined
      : `${newest !== undefined && newest > limit ? `every quote is older than maxAge ${age(limit / 1000)} (the newest is ${age(newest / 1000)} old)` : `quotes in use are older than maxAge ${age(limit / 1000)}`}: ${limits.hint(source.name) ?? 'renew them, or raise maxAge'}`;
    // The stale summary already says what the quotes dropped for their age have in common; list only the others.
    const dropped = stale
      ? source.rejected.slice(0, source.rejected.length - (source.staleDropped ?? 0))
      : source.rejected;
    const problem = [
      staleText,
      source.error && problemText(source, source.error),
      ...dropped.map((r) => `dropped ${r}`),
    ]
      .filter((p): p is string => !!p)
      .filter((p, i, all) => all.indexOf(p) === i)
      .join('; ');
    return {
      name: source.name,
      type: source.type,
      state: stale ? 'stale' : source.ok ? 'ok' : source.reused === 'fallback' ? 'fallback' : 'failing',
      count: source.rows === undefined ? plural(source.quotes, 'quote') : `${source.rows} rows`,
      ...(lastSuccessAt === undefined ? {} : { lastSuccessAt }),
      ...(ageMs === undefined ? {} : { quoteAgeSeconds: seconds(ageMs) }),
      ...(limit === undefined ? {} : { maxAgeSeconds: limit === null ? null : seconds(limit) }),
      ...(ageMs !== undefined && typeof limit === 'number' ? { leftSeconds: seconds(limit - ageMs) } : {}),
      ...(problem ? { problem: text(problem) } : {}),
      ...(source.stream ? { stream: streamText(source.stream) } : {}),
    };
  });
}

/** `live, 12 by stream, 0 by REST, 3 reconnects`: how a streamed source is fed. */
function streamText(stream: NonNullable<BuildReport['sources'][number]['stream']>): string {
  const by = (fed: 'stream' | 'rest') => stream.pairs.filter((pair) => pair.fed === fed).length;
  return `${stream.state}, ${by('stream')} by stream, ${by('rest')} by REST, ${plural(stream.reconnects, 'reconnect')}`;
}
