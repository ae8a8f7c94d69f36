// `ratefile start`: build now, rebuild on the schedule and serve, in one process (the service).
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { checkFolders } from '../base/folders.js';
import { configOption, hostOption, outOption, portOption, type CommandContext } from './context.js';

interface StartOptions {
  config: string;
  out?: string;
  port?: number;
  host?: string;
  /** `--no-serve` sets it false. */
  serve?: boolean;
}

export function register(program: Command, context: CommandContext): void {
  const { deps, log } = context;
  program
    .command('start')
    .description('build now, rebuild on the schedule and serve, in one process')
    .addOption(configOption())
    .addOption(outOption())
    .addOption(portOption())
    .addOption(hostOption())
    .option('--no-serve', 'build on the schedule without listening (nginx or S3 serves the files)')
    .action(async (options: StartOptions) => {
      // The service (scheduler, server, metrics, alerts) is imported when it starts, not for `--help`.
      const [{ configReloader }, { startService }, { controlRunner }] = await Promise.all([
        import('../io/config/reload.js'),
        import('../service/start/service.js'),
        import('./control-runner.js'),
      ]);
      // Reloaded before every build, but parsed again only when the config or a template changed and the
      // change has settled (a file saved in place is never read half-written).
      const loadConfig = configReloader(resolve(deps.cwd, options.config), () => context.load(options.config), {
        now: deps.now,
        warn: (line) => log.warn(line),
      });
      const config = await loadConfig();
      for (const warning of config.warnings) log.warn(warning);
      const outDir = context.outDir(config, options.out);
      const service = await startService({
        config,
        loadConfig,
        outDir,
        port: context.portFor(config, options.port),
        host: options.host ?? config.server.host,
        serve: options.serve !== false,
        checkFolders: () =>
          checkFolders(
            { key: options.out ? '--out' : 'output', path: outDir },
            { key: 'state', path: config.stateDir },
          ),
        log,
        deps: { now: deps.now, fetch: deps.fetch, env: deps.env },
        // The control bot (`control:`) runs the CLI's own commands on this config.
        commands: controlRunner(deps, resolve(deps.cwd, options.config)),
      });
      const signal = await deps.waitForStop();
      log.info(`${signal}: finishing the running build, then stopping`);
      await service.stop();
      log.info('stopped');
      context.setExitCode(0);
    });
}
