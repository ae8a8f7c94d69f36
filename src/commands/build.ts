// `ratefile build`: price once and write the exports (or print them with --dry-run).
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { checkFolders } from '../folders.js';
import { configOption, outOption, type CommandContext } from './context.js';

export function registerBuild(program: Command, context: CommandContext): void {
  const { deps, log } = context;
  program
    .command('build')
    .description('price every direction once and write the exports')
    .addOption(configOption())
    .addOption(outOption())
    .option('--dry-run', 'print the files that would be written instead of writing them')
    .action(async (options: { config: string; out?: string; dryRun?: boolean }) => {
      // The pipeline is imported when the command runs, not when the program is made (`--help`, `--version`).
      const [{ build }, { runCycle }, { buildFields, problemLines, summarize }] = await Promise.all([
        import('../build.js'),
        import('../cycle.js'),
        import('../cycle-lines.js'),
      ]);
      const config = await context.load(options.config);
      for (const warning of config.warnings) log.warn(warning);
      const dir = context.outDir(config, options.out);
      let failing: boolean;
      if (options.dryRun) {
        const result = await build(config, { now: deps.now, fetch: deps.fetch, env: deps.env });
        for (const line of problemLines(result)) log.warn(line);
        for (const file of result.files) {
          deps.stdout.write(`==> ${context.shown(resolve(dir, file.file))} (${file.bytes.length} bytes) <==\n`);
          deps.stdout.write(file.bytes.toString('utf8'));
        }
        failing = result.report.sources.some((source) => !source.ok || source.rejected.length > 0);
      } else {
        await checkFolders(
          { key: options.out ? '--out' : 'output', path: dir },
          { key: 'state', path: config.stateDir },
        );
        // With `ha:`, a one-off build publishes only when it can take the lock (never beside a running leader).
        const standby = config.ha
          ? (await import('../ha/standby.js')).createStandby(config, { env: deps.env, log, now: deps.now })
          : undefined;
        const cycle = await runCycle(config, dir, {
          now: deps.now,
          fetch: deps.fetch,
          env: deps.env,
          ...(standby ? { ha: standby } : {}),
        }).finally(() => standby?.close());
        if (cycle.standby) {
          log.warn(`not published: ${cycle.status.ha?.reason ?? 'another instance holds the ha: lock'}`);
          context.setExitCode(1);
          return;
        }
        for (const line of problemLines(cycle.build)) log.warn(line);
        for (const warning of cycle.warnings) log.warn(warning);
        log.info(`build: ${summarize(cycle)} → ${context.shown(dir)}`, buildFields(cycle));
        failing =
          cycle.build.report.sources.some((source) => !source.ok || source.rejected.length > 0) ||
          (cycle.upload?.failed.length ?? 0) > 0;
      }
      // The files are written either way, without the directions a failing source or a dropped quote
      // left unpriced; the exit code tells a cron job that something needs a look.
      context.setExitCode(failing ? 1 : 0);
    });
}
