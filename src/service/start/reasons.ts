// The reasons of a build (src/pure/status/reasons.ts) as log lines across builds: each logged when it starts and when
// it ends, not at every build, where ages in the text change each time; many of one cause summarised (count, the
// first few, where to see all), so one fault at 10,000 directions and its end are a handful of lines.
import type { BuildResult } from '../../io/build/build.js';
import type { Logger } from '../../base/log.js';
import { buildReasons, summariseReasons, type Reason } from '../../pure/status/reasons.js';

/** A logger of reasons across builds: `warn` when one starts, `info` when it is over. */
export function reasonLog(log: Logger): (result: BuildResult) => void {
  let known = new Map<string, Reason>();
  return (result) => {
    const now = new Map(buildReasons(result.report).map((reason) => [reason.key, reason]));
    const started = [...now.values()].filter((reason) => !known.has(reason.key));
    const ended = [...known.values()].filter((reason) => !now.has(reason.key));
    for (const line of summariseReasons(started))
      log.warn(line.line, { event: 'reason', state: 'start', ...fields(line) });
    for (const line of summariseReasons(ended, 'over: '))
      log.info(line.line, { event: 'reason', state: 'end', ...fields(line) });
    known = now;
  };
}

const fields = (line: ReturnType<typeof summariseReasons>[number]) =>
  'reason' in line ? { key: line.reason.key } : { cause: line.cause, count: line.count };
