// The build lines of `ratefile start`: a line when a build changed something an operator acts on, and between such
// lines a heartbeat at most every `log.heartbeat`, so a quiet day is a few hundred lines, not one per build.
import { configDigest } from '../../io/config/reload.js';
import type { CycleResult } from '../../io/build/cycle.js';
import { buildFields, summarize } from '../../pure/status/cycle-lines.js';
import type { Logger } from '../../base/log.js';
import type { Config } from '../../model/config.js';
import { buildReasons } from '../../pure/status/reasons.js';
import { age, plural } from '../../base/words.js';

/**
 * What a build's outcome is, as one comparable text: the maintenance switch, each source's and reserve source's
 * ok or failing, the reasons (dropped quotes by pair, each direction withheld or left out with its kind and files),
 * each export's item count, the failed uploads, a rejected config and the health level. Left out is what moves at
 * every build without anything having happened: the duration, and the ages and figures inside a reason's text.
 */
export function buildState(result: CycleResult): string {
  const { report } = result.build;
  return JSON.stringify([
    report.maintenance,
    report.sources.map((s) => `${s.name}:${s.ok}`),
    report.reserves.map((r) => `${r.name}:${r.ok}`),
    buildReasons(result.build.report).map((reason) => reason.key),
    report.exports.map((e) => `${e.file}:${e.items}`),
    result.upload?.failed.map((f) => f.file) ?? [],
    result.status.configError ?? null,
    result.status.health?.level ?? null,
  ]);
}

/** Files, uploads or removals this build changed: new bytes went out. */
function published(result: CycleResult): boolean {
  const upload = result.upload;
  return (
    result.publish.written.length > 0 ||
    result.removed.length > 0 ||
    (upload !== undefined && upload.uploaded.length + upload.removed.length > 0)
  );
}

export interface BuildLog {
  /**
   * A build that published: its line when something changed or its config was edited since the last build, else
   * counted, with a heartbeat once the config's `log.heartbeat` has passed since the last line. `changed`: the
   * watched files whose change started the build off the schedule, said on its line (field `trigger`).
   */
  built(
    result: CycleResult,
    config: Config,
    changedAt: ReadonlyMap<string, Date>,
    now: Date,
    changed?: readonly string[],
  ): Promise<void>;
  /** A build that failed (the caller logs its error): the next good build is logged whatever it did. */
  failed(now: Date): void;
}

/** Started by streamed moves alone (named `<source> (stream)`, src/service/start/streams.ts): new rates are their point. */
const byMoves = (changed: readonly string[] | undefined) =>
  changed !== undefined && changed.length > 0 && changed.every((name) => name.endsWith(' (stream)'));

/** "parserfile.xml, reffile.xml last changed 3 h ago"; files of different ages each with their own. */
function filesAge(files: readonly string[], changedAt: ReadonlyMap<string, Date>, now: Date): string {
  const ages = new Map<string, string[]>();
  for (const file of files) {
    const at = changedAt.get(file);
    const text = at === undefined ? 'missing' : `last changed ${age((now.getTime() - at.getTime()) / 1000)} ago`;
    (ages.get(text) ?? ages.set(text, []).get(text)!).push(file);
  }
  return [...ages].map(([text, named]) => `${named.join(', ')} ${text}`).join('; ');
}

export function createBuildLog(log: Logger): BuildLog {
  /** Until a line is logged there is nothing to compare with: the first build after start is always logged. */
  let last: string | undefined;
  let lastLineAt = new Date(0);
  let unchanged = 0;
  /** Of the unchanged, the builds streamed moves started: they republished rates, nothing else changed. */
  let moved = 0;
  /** The config of the last build and a digest of its files: the reloader may adopt the same text anew. */
  let seen: { config: Config; digest: string } | undefined;
  const edited = async (config: Config): Promise<boolean> => {
    if (seen?.config === config) return false;
    const digest = await configDigest(config);
    const changed = seen !== undefined && seen.digest !== digest;
    seen = { config, digest };
    return changed;
  };
  const heartbeat = (result: CycleResult, changedAt: ReadonlyMap<string, Date>, now: Date, since: number) => {
    const { directions, exports } = result.build.report;
    const files = exports.map((e) => e.file);
    const moves = moved === 0 ? '' : ` but the rates (${moved} of them started by streamed moves)`;
    log.info(
      `heartbeat: ${plural(unchanged, 'build')} in ${age(since / 1000)} changed nothing${moves}; published ${plural(directions.published.length, 'direction')}, ${directions.withheld.length} held back; ${filesAge(files, changedAt, now)}`,
      {
        event: 'heartbeat',
        unchangedBuilds: unchanged,
        ...(moved === 0 ? {} : { movedBuilds: moved }),
        sinceSeconds: Math.round(since / 1000),
        published: directions.published.length,
        heldBack: directions.withheld.length,
        files: files.map((file) => {
          const at = changedAt.get(file);
          return at === undefined
            ? { file }
            : { file, changedAt: at.toISOString(), ageSeconds: Math.round((now.getTime() - at.getTime()) / 1000) };
        }),
      },
    );
  };
  return {
    async built(result, config, changedAt, now, changed) {
      const state = buildState(result);
      const reloaded = await edited(config);
      // A build on streamed moves that changed nothing but the rates is counted, not logged: it may come every second.
      if (last === undefined || reloaded || state !== last || (published(result) && !byMoves(changed))) {
        const files = changed?.join(', ');
        log.info(`build: ${summarize(result)}${files === undefined ? '' : `; started by a change to ${files}`}`, {
          ...buildFields(result),
          ...(files === undefined ? {} : { trigger: `change ${files}` }),
        });
        last = state;
      } else {
        unchanged++;
        if (byMoves(changed)) moved++;
        const since = now.getTime() - lastLineAt.getTime();
        if (since < config.log.heartbeatMs) return;
        heartbeat(result, changedAt, now, since);
      }
      lastLineAt = now;
      unchanged = 0;
      moved = 0;
    },
    failed(now) {
      last = undefined;
      lastLineAt = now;
      unchanged = 0;
      moved = 0;
    },
  };
}
