// How long a source's quotes stay usable and what renews them, in words: the dashboard's stale sources and the
// notes `start` logs after its first build, so whoever ran it learns when quotes expire before they do. Pure.
import type { SourceConfig } from '../../model/config.js';
import type { SourceReport } from '../status/report.js';

import { age } from '../../base/words.js';

const filePath = (source: SourceConfig): string | undefined =>
  source.type === 'file' && typeof source.options.path === 'string' ? source.options.path : undefined;

/** What a person does so a source's quotes are used again once they are past its maxAge. */
export function renewHint(source: SourceConfig): string {
  const path = filePath(source);
  if (path !== undefined) {
    return `rewrite ${path} with fresh quotes (new "time" values; a quote without a "time" is as old as the file, so \`touch ${path}\` renews it), or raise the source's maxAge ("off": no limit)`;
  }
  return `the source sends quotes older than its maxAge: check it, or raise the source's maxAge`;
}

export interface FreshnessNote {
  level: 'info' | 'warn';
  text: string;
}

/**
 * For each `file` source (a person or a back office keeps it fresh): when its quotes pass maxAge and what renews
 * them, or that they never expire; a warning when every quote is already past it. Other sources are fetched afresh.
 */
export function freshnessNotes(
  sources: readonly SourceConfig[],
  reports: readonly SourceReport[],
  maxAgeMs: (source: SourceConfig) => number | undefined,
  now: Date,
): FreshnessNote[] {
  const notes: FreshnessNote[] = [];
  for (const source of sources) {
    const path = filePath(source);
    const times = reports.find((report) => report.name === source.name)?.quoteTimes;
    if (path === undefined || !times) continue;
    const limit = maxAgeMs(source);
    const oldest = now.getTime() - times.oldest.getTime();
    const newest = now.getTime() - times.newest.getTime();
    if (limit === undefined) {
      notes.push({
        level: 'info',
        text: `source ${source.name}: maxAge "off": the quotes of ${path} are used however old (the oldest is ${age(oldest / 1000)} old), so they never expire; right for a fixed snapshot like the demo's, while a back office writing live quotes should set one (e.g. maxAge: 2m)`,
      });
    } else if (newest > limit) {
      notes.push({
        level: 'warn',
        text: `source ${source.name}: every quote of ${path} is older than its maxAge ${age(limit / 1000)} (the newest is ${age(newest / 1000)} old): the directions needing them are held back; ${renewHint(source)}`,
      });
    } else {
      const passes = new Date(times.oldest.getTime() + limit);
      const when =
        oldest > limit
          ? `its oldest is already past it`
          : `the oldest passes it at ${passes.toISOString()}, in ${age((limit - oldest) / 1000)}`;
      notes.push({
        level: 'info',
        text: `source ${source.name}: the quotes of ${path} are used until they are ${age(limit / 1000)} old (maxAge), ${when}; to keep them in use, ${renewHint(source)}`,
      });
    }
  }
  return notes;
}
