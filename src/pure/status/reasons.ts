// The reasons of a build (a failing source or reserve source, a dropped quote, a direction withheld or left out of
// some exports) as keyed lines, and those lines summarised per cause: one fault at 10,000 directions is a handful of
// lines (how many, the first few, where to see them all), not 10,000 that push the build's own line past journald's
// burst limit. `ratefile build` prints them once; `start` logs each reason when it starts and when it ends. Pure.
import type { BuildReport } from './report.js';
import { madeBy, notMadeText } from './rates.js';
import { directionName, plural } from '../../base/words.js';

export interface Reason {
  /** Stable while the reason lasts: the source, the source and pair, or the direction and kind. */
  key: string;
  /** What reasons share when one fault makes many of them: a kind of withholding, a source's dropped quotes. */
  cause: string;
  /** The cause in words, after a count: "directions held back (stale)". */
  many: [one: string, more: string];
  line: string;
}

const heldName = (d: { from: { code: string }; to: { code: string }; index: number }) =>
  `${directionName(d.from.code, d.to.code)} (directions[${d.index}])`;

export function buildReasons(report: BuildReport): Reason[] {
  return [
    ...report.sources
      .filter((s) => !s.ok)
      .map((s) => ({
        key: `source:${s.name}`,
        cause: `source:${s.name}`,
        many: ['failing source', 'failing sources'] as Reason['many'],
        line: `source ${s.name} failed: ${s.error ?? 'unknown error'}`,
      })),
    ...report.sources.flatMap((s) =>
      s.rejected.map((reason) => ({
        key: `dropped:${s.name}:${reason.split(':')[0]}`,
        cause: `dropped:${s.name}`,
        many: [`quote dropped from source ${s.name}`, `quotes dropped from source ${s.name}`] as Reason['many'],
        line: `source ${s.name}: dropped quote ${reason}`,
      })),
    ),
    ...report.reserves
      .filter((r) => r.error !== undefined)
      .map((r) => ({
        key: `reserves:${r.name}`,
        cause: `reserves:${r.name}`,
        many: ['failing reserve source', 'failing reserve sources'] as Reason['many'],
        line: `reserve source ${r.name} failed: ${r.error}`,
      })),
    ...report.rates
      .filter((rate) => rate.missing !== undefined)
      .map((rate) => ({
        key: `rate:${rate.pair}`,
        cause: 'rate:missing',
        many: ['ruled pair that cannot be made', 'ruled pairs that cannot be made'] as Reason['many'],
        line: notMadeText({ pair: rate.pair, made: madeBy(rate.rule), missing: rate.missing }),
      })),
    ...report.directions.withheld.map((w) => ({
      key: `withheld:${w.direction.id}:${w.kind}`,
      cause: `withheld:${w.kind}`,
      many: [`direction held back (${w.kind})`, `directions held back (${w.kind})`] as Reason['many'],
      line: `held back ${heldName(w.direction)}: ${w.reason}`,
    })),
    ...report.directions.leftOut.map((o) => ({
      key: `left-out:${o.direction.id}:${o.files.join(',')}`,
      cause: `left-out:${o.kind}`,
      many: [
        `direction published but left out of some exports (${o.kind})`,
        `directions published but left out of some exports (${o.kind})`,
      ] as Reason['many'],
      line: `published ${heldName(o.direction)} but ${o.reason}`,
    })),
  ];
}

/** Up to this many reasons of one cause are each a line; more are one line of their count, then the first `SHOWN`. */
export const REASONS_EACH = 5;
export const REASONS_SHOWN = 3;

/** Where every reason of a build is, when the log gives only the first few. */
const everyOne = 'every one in `ratefile status` (`--json`) and on the dashboard';

/** A line of the summarised reasons: one reason (`reason`), or the count of a cause's (`cause`, `count`). */
export type ReasonLine = { line: string; reason: Reason } | { line: string; cause: string; count: number };

/**
 * The reasons as lines, in their order, each cause's together: a cause of at most `REASONS_EACH` reasons one line
 * each; of more, a line with their count and where to see them all, then its first `REASONS_SHOWN`. `prefix` comes
 * before every line ("over: " when they end).
 */
export function summariseReasons(reasons: readonly Reason[], prefix = ''): ReasonLine[] {
  const byCause = new Map<string, Reason[]>();
  for (const reason of reasons)
    (byCause.get(reason.cause) ?? byCause.set(reason.cause, []).get(reason.cause)!).push(reason);
  return [...byCause].flatMap(([cause, all]) => {
    const each = (shown: readonly Reason[]) => shown.map((reason) => ({ line: `${prefix}${reason.line}`, reason }));
    if (all.length <= REASONS_EACH) return each(all);
    const [one, more] = all[0]!.many;
    const count = `${plural(all.length, one, more)}, the first ${REASONS_SHOWN} below`;
    return [{ line: `${prefix}${count}; ${everyOne}`, cause, count: all.length }, ...each(all.slice(0, REASONS_SHOWN))];
  });
}
