// A quote's age judged at publish time too: a build priced at its start, and a slow one (a source answering late, ten
// thousand directions) can reach the publish with quotes past their source's maxAge. Those directions are withheld
// then (kind `stale`) and the exports rendered again without them; the guard state forgets their new rates.
import type { Config } from '../../model/config.js';
import type { ChainStep, PricedDirection, WithheldDirection } from '../../model/priced.js';
import type { GuardState } from '../../pure/guards/guards.js';
import { sourcesOf } from '../../pure/rates/answers.js';
import { age } from '../../base/words.js';
import { sourceMaxAgeMs } from '../quotes/source-options.js';
import type { BuildResult } from './build.js';
import { byIndex, renderExports, tally } from './render.js';

/** A step's source's maxAge; a ruled quote's is the shortest of the sources behind it. */
function limitOf(step: ChainStep, maxAge: ReadonlyMap<string, number | undefined>): number | undefined {
  const sources = step.quote.ruled && step.quote.answers ? sourcesOf(step.quote.answers) : [step.quote.source];
  const limits = sources.map((source) => maxAge.get(source)).filter((limit) => limit !== undefined);
  return limits.length === 0 ? undefined : Math.min(...limits);
}

/** Why a priced direction must not be published at `at`: a quote of its chain past its maxAge by then. */
function lateReason(priced: PricedDirection, at: Date, maxAge: ReadonlyMap<string, number | undefined>) {
  for (const step of priced.steps) {
    const limit = limitOf(step, maxAge);
    const old = at.getTime() - step.quote.time.getTime();
    if (limit !== undefined && old > limit)
      return `quote ${step.pair} from ${step.quote.source} is ${age(old / 1000)} old when published (limit ${age(limit / 1000)}): the build took too long`;
  }
  return undefined;
}

/**
 * The build as it may be published at `at`: unchanged when every quote it publishes is within its maxAge then (told
 * from each source's oldest quote first), else without the directions whose quotes are not, rendered again.
 */
export function withdrawLate(config: Config, result: BuildResult, previous: GuardState, at: Date): BuildResult {
  const maxAge = new Map(
    config.sources.map((source) => [source.name, sourceMaxAgeMs(source, config.schedulePeriodMs)]),
  );
  const { report } = result;
  const mayBeLate = report.sources.some((source) => {
    const limit = maxAge.get(source.name);
    return limit !== undefined && source.quoteTimes && at.getTime() - source.quoteTimes.oldest.getTime() > limit;
  });
  if (!mayBeLate || !result.before) return result;
  const late: WithheldDirection[] = [];
  const published = report.priced.filter((priced) => {
    const reason = lateReason(priced, at, maxAge);
    if (reason !== undefined) late.push({ direction: priced.direction, kind: 'stale', reason });
    return reason === undefined;
  });
  if (late.length === 0) return result;
  const before = [...result.before, ...late].sort(byIndex);
  const rendered = renderExports(config, published, undefined);
  const { withheld, directions } = tally(config, published, before, rendered.leftOut);
  const ids = new Set(late.map((w) => w.direction.id));
  return {
    files: rendered.files,
    before,
    report: {
      ...report,
      priced: published,
      withheld,
      directions,
      exports: rendered.exports,
      guardState: forget(report.guardState, previous, ids),
      acceptedUsed: report.acceptedUsed.filter((id) => !ids.has(id)),
    },
  };
}

/** The guard state with these directions' entries as they were before the build: their new rates were never out. */
function forget(state: GuardState, previous: GuardState, ids: ReadonlySet<string>): GuardState {
  const next: GuardState = { published: { ...state.published }, pending: { ...state.pending } };
  for (const id of ids) {
    for (const part of ['published', 'pending'] as const) {
      const was = previous[part][id];
      if (was) next[part][id] = was;
      else delete next[part][id];
    }
  }
  return next;
}
