// The reasons of a build (a failing source, a dropped quote, a held-back direction) as keyed log lines,
// logged when each starts and when it ends — not at every build, where ages in the text change each time.
import type { BuildResult } from '../../io/build/build.js';
import type { Logger } from '../../base/log.js';
import { directionName } from '../../base/words.js';

export interface Reason {
  /** Stable while the reason lasts: the source, the source and pair, or the direction and kind. */
  key: string;
  line: string;
}

export function buildReasons(result: BuildResult): Reason[] {
  const { report } = result;
  return [
    ...report.sources
      .filter((s) => !s.ok)
      .map((s) => ({ key: `source:${s.name}`, line: `source ${s.name} failed: ${s.error ?? 'unknown error'}` })),
    ...report.sources.flatMap((s) =>
      s.rejected.map((reason) => ({
        key: `dropped:${s.name}:${reason.split(':')[0]}`,
        line: `source ${s.name}: dropped quote ${reason}`,
      })),
    ),
    ...report.directions.withheld.map((w) => ({
      key: `withheld:${w.direction.id}:${w.kind}`,
      line: `held back ${directionName(w.direction.from.code, w.direction.to.code)} (directions[${w.direction.index}]): ${w.reason}`,
    })),
    ...report.directions.leftOut.map((o) => ({
      key: `left-out:${o.direction.id}:${o.files.join(',')}`,
      line: `published ${directionName(o.direction.from.code, o.direction.to.code)} (directions[${o.direction.index}]) but ${o.reason}`,
    })),
  ];
}

/** A logger of reasons across builds: `warn` when one starts, `info` when it is over. */
export function reasonLog(log: Logger): (result: BuildResult) => void {
  let known = new Map<string, string>();
  return (result) => {
    const now = new Map(buildReasons(result).map((reason) => [reason.key, reason.line]));
    for (const [key, line] of now) if (!known.has(key)) log.warn(line, { event: 'reason', state: 'start', key });
    for (const [key, line] of known)
      if (!now.has(key)) log.info(`over: ${line}`, { event: 'reason', state: 'end', key });
    known = now;
  };
}
