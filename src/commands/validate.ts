// `ratefile validate`: load the config and its templates as a build would, fetching nothing; exit 0, or 2 with every problem.
import type { Command } from 'commander';
import { configOption, type CommandContext } from './context.js';

export function register(program: Command, context: CommandContext): void {
  const { deps, log } = context;
  program
    .command('validate')
    .description('check the config and its templates without fetching anything (exit 0, or 2 listing every problem)')
    .addOption(configOption())
    .action(async (options: { config: string }) => {
      // Problems throw E_CONFIG (exit 2) with every line; warnings do not fail it.
      const config = await context.load(options.config);
      const { plural } = await import('../base/words.js');
      for (const warning of config.warnings) log.warn(warning);
      deps.stdout.write(
        `${context.shown(config.file)}: ok — ${plural(config.directions.length, 'direction')}, ${plural(config.sources.length, 'source')}, ` +
          `${plural(config.exports.length, 'export')} (${config.exports.map((e) => e.file).join(', ')})\n`,
      );
      context.setExitCode(0);
    });
}
