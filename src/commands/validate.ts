// `ratefile validate`: load the config and its templates as a build would, fetching nothing; exit 0, or 2 with every
// problem. Then the directions one source alone can set, and what could check them (src/pure/guards/sole-source.ts).
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
      // Not a problem of the config: what one broken source could do to it, and what could check it.
      const { configSoleSource } = await import('../pure/guards/sole-source.js');
      const { soleSourceGroups, soleSourceLines } = await import('../pure/status/sole-source.js');
      const lines = soleSourceLines(soleSourceGroups(configSoleSource(config)), true);
      if (lines.length > 0) deps.stdout.write(`${lines.join('\n')}\n`);
      context.setExitCode(0);
    });
}
