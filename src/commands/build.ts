// `ratefile build`: price once and write the exports (or print them with --dry-run).
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { checkFolders } from '../base/folders.js';
import type { Config } from '../model/config.js';
import type { BuildReport, Status } from '../pure/status/report.js';
import { configOption, outOption, type CommandContext } from './context.js';

interface BuildOptions {
  config: string;
  out?: string;
  dryRun?: boolean;
}

/** What decides the exit code: the status the build leaves (its health), its report and how many uploads failed. */
interface Built {
  status: Status;
  report: BuildReport;
  failedUploads: number;
}

/** `--dry-run`: build in memory and print each file under a header; nothing is written. */
async function printBuild(context: CommandContext, config: Config, dir: string): Promise<Built> {
  const { deps, log } = context;
  // The pipeline is imported when the command runs, not when the program is made (`--help`, `--version`).
  const [{ build }, { problemLines }, { successStatus }] = await Promise.all([
    import('../io/build/build.js'),
    import('../pure/status/cycle-lines.js'),
    import('../pure/status/status.js'),
  ]);
  const result = await build(config, { now: deps.now, fetch: deps.fetch, env: deps.env });
  // The status this build would leave, kept in memory: its health decides the exit code as a written one's does.
  const status = successStatus(undefined, result.report, 0, config.schedulePeriodMs, { healthPolicy: config.health });
  for (const line of problemLines(result)) log.warn(line);
  for (const file of result.files) {
    deps.stdout.write(`==> ${context.shown(resolve(dir, file.file))} (${file.bytes.length} bytes) <==\n`);
    deps.stdout.write(file.bytes.toString('utf8'));
  }
  return { status, report: result.report, failedUploads: 0 };
}

/** A build that writes and publishes (one cycle); undefined when a standby of `ha:` did not publish (exit 1). */
async function publishBuild(
  context: CommandContext,
  config: Config,
  dir: string,
  options: BuildOptions,
): Promise<Built | undefined> {
  const { deps, log } = context;
  const [{ runCycle }, { buildFields, problemLines, summarize }] = await Promise.all([
    import('../io/build/cycle.js'),
    import('../pure/status/cycle-lines.js'),
  ]);
  await checkFolders({ key: options.out ? '--out' : 'output', path: dir }, { key: 'state', path: config.stateDir });
  // With `ha:`, a one-off build publishes only when it can take the lock (never beside a running leader).
  const standby = config.ha
    ? (await import('../io/ha/standby.js')).createStandby(config, { env: deps.env, log, now: deps.now })
    : undefined;
  // Every published export kept (`archive:`), the files on disk it lacks recorded first.
  const archive = await (await import('../io/archive/archive.js')).openArchive(config, { ...deps, log, outDir: dir });
  const cycle = await runCycle(config, dir, {
    now: deps.now,
    fetch: deps.fetch,
    env: deps.env,
    ...(standby ? { ha: standby } : {}),
    ...(archive ? { archive } : {}),
  }).finally(async () => {
    standby?.close();
    await archive?.close();
  });
  if (cycle.standby) {
    log.warn(`not published: ${cycle.status.ha?.reason ?? 'another instance holds the ha: lock'}`);
    context.setExitCode(1);
    return undefined;
  }
  for (const line of problemLines(cycle.build)) log.warn(line);
  for (const warning of cycle.warnings) log.warn(warning);
  log.info(`build: ${summarize(cycle)} → ${context.shown(dir)}`, buildFields(cycle));
  return { status: cycle.status, report: cycle.build.report, failedUploads: cycle.upload?.failed.length ?? 0 };
}

export function register(program: Command, context: CommandContext): void {
  program
    .command('build')
    .description('price every direction once and write the exports')
    .addOption(configOption())
    .addOption(outOption())
    .option('--dry-run', 'print the files that would be written instead of writing them')
    .action(async (options: BuildOptions) => {
      const config = await context.load(options.config);
      for (const warning of config.warnings) context.log.warn(warning);
      const dir = context.outDir(config, options.out);
      const built = options.dryRun
        ? await printBuild(context, config, dir)
        : await publishBuild(context, config, dir, options);
      if (built === undefined) return;
      // The files are written either way, without what a fault left unpriced; the exit code (the rule `status`
      // exits by, on the health this build leaves) tells a cron job that something needs a look.
      const { assessHealth, exitCodeOf } = await import('../pure/status/health.js');
      const unusable = built.report.sources.some((source) => source.rejected.length > 0);
      const health = assessHealth(built.status, context.deps.now());
      context.setExitCode(exitCodeOf(health, { unusable, failedUploads: built.failedUploads }));
    });
}
