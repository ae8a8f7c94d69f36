// `ratefile serve`: serve the output folder alone, no builds (`start` builds and serves).
import type { Command } from 'commander';
import { DEFAULT_HOST } from '../base/config/defaults.js';
import { configOption, hostOption, outOption, portOption, type CommandContext } from './context.js';

interface ServeOptions {
  config: string;
  out?: string;
  port?: number;
  host?: string;
}

export function register(program: Command, context: CommandContext): void {
  const { deps, log } = context;
  program
    .command('serve')
    .description('serve the output folder: only the exports (.xml, .json) with their content types, ETag and 304')
    .addOption(configOption())
    .addOption(outOption())
    .addOption(portOption())
    .addOption(hostOption())
    .action(async (options: ServeOptions) => {
      const { boundUrl, createExportServer, listen } = await import('../service/server/server.js');
      const config = options.out ? undefined : await context.load(options.config);
      const dir = context.outDir(config, options.out);
      // With a config, only its declared exports answer; `--out` alone cannot know them: every export-named file.
      const declared = config && new Set(config.exports.map((e) => e.file));
      const server = createExportServer(
        dir,
        {},
        undefined,
        config ? { declared: () => declared!, headers: () => config.server.headers } : {},
      );
      await listen(server, context.portFor(config, options.port), options.host ?? config?.server.host ?? DEFAULT_HOST);
      log.info(`serving ${context.shown(dir)} at ${boundUrl(server)}`);
      const signal = await deps.waitForStop();
      log.info(`${signal}: stopping`);
      await new Promise<void>((resolveClose) => {
        server.close(() => resolveClose());
        server.closeAllConnections();
      });
      context.setExitCode(0);
    });
}
