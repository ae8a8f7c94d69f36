// One build cycle as both `ratefile build` and the scheduler run it: build, publish, one summary line.
import { build, type BuildDeps, type BuildResult } from './build.js';
import type { Config } from './model.js';
import { publishFiles, type PublishResult } from './publish.js';

export interface CycleResult {
  build: BuildResult;
  publish: PublishResult;
  durationMs: number;
}

export async function runCycle(config: Config, outDir: string, deps: BuildDeps & { elapsed?: () => number }): Promise<CycleResult> {
  const elapsed = deps.elapsed ?? (() => performance.now());
  const started = elapsed();
  const result = await build(config, deps);
  const publish = await publishFiles(result.files, outDir);
  return { build: result, publish, durationMs: Math.round(elapsed() - started) };
}

/** "published 36 directions, 2 held back; parserfile.xml 41 items (written), …; 12 ms; failing sources: x". */
export function summarize(cycle: CycleResult): string {
  const { report } = cycle.build;
  const files = report.exports
    .map((e) => `${e.file} ${e.items} item${e.items === 1 ? '' : 's'} (${cycle.publish.written.includes(e.file) ? 'written' : 'unchanged'})`)
    .join(', ');
  const failing = report.sources.filter((s) => !s.ok).map((s) => s.name);
  return [
    `published ${report.priced.length} direction${report.priced.length === 1 ? '' : 's'}, ${report.withheld.length} held back`,
    files,
    `${cycle.durationMs} ms`,
    ...(failing.length > 0 ? [`failing sources: ${failing.join(', ')}`] : []),
  ].join('; ');
}

/** Detail lines worth a separate log line: failing sources, rejected quotes and held-back directions. */
export function problemLines(result: BuildResult): string[] {
  const { report } = result;
  return [
    ...report.sources.filter((s) => !s.ok).map((s) => `source ${s.name} failed: ${s.error ?? 'unknown error'}`),
    ...report.sources.flatMap((s) => s.rejected.map((reason) => `source ${s.name}: dropped quote ${reason}`)),
    ...report.withheld.map((w) => `held back ${w.direction.id} (directions[${w.direction.index}]): ${w.reason}`),
  ];
}
