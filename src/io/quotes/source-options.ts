// A source's options as its fetching reads them: priority in the book, refresh interval, the age past which quotes are not used.
import type { SourceConfig } from '../../model/config.js';
import { sourceDefinition } from '../sources/index.js';

const numberOption = (source: SourceConfig, key: string): number | undefined => {
  const value = source.options[key];
  return typeof value === 'number' ? value : undefined;
};

export const sourcePriority = (source: SourceConfig): number => numberOption(source, 'priority') ?? 0;

/** How long quotes are reused before the source is asked again (0: every build). */
export function sourceRefreshMs(source: SourceConfig): number {
  return numberOption(source, 'refresh') ?? sourceDefinition(source.type)?.defaultRefreshMs ?? 0;
}

/**
 * The age above which a source's quotes are not used: its `maxAge`, else twice its refresh interval or
 * the schedule period, whichever is longer; undefined for `maxAge: off` (no limit).
 */
export function sourceMaxAgeMs(source: SourceConfig, schedulePeriodMs = 30_000): number | undefined {
  const configured = numberOption(source, 'maxAge');
  if (configured !== undefined) return Number.isFinite(configured) ? configured : undefined;
  return 2 * Math.max(sourceRefreshMs(source), schedulePeriodMs);
}
