// `ratefile resume FROM TO`: publish a paused direction again (every city of it, or only --city).
import type { Command } from 'commander';
import { configOption, type CommandContext } from './context.js';
import { switchedDirection } from './switches.js';

export function register(program: Command, context: CommandContext): void {
  const { deps } = context;
  program
    .command('resume')
    .description('publish a paused direction again (every city of it, or only --city)')
    .argument('<from>', 'from currency code')
    .argument('<to>', 'to currency code')
    .option('--city <code>', 'resume only this city')
    .addOption(configOption())
    .action(async (from: string, to: string, options: { city?: string; config: string }) => {
      const config = await context.load(options.config);
      const { direction, what } = await switchedDirection(config, context.shown(config.file), {
        from,
        to,
        city: options.city,
      });
      const { removePauses } = await import('../io/state/state.js');
      const removed = await removePauses(config.stateDir, direction.id, options.city);
      if (removed === 0) {
        deps.stdout.write(`${what} is not paused: nothing to resume\n`);
        context.setExitCode(1);
        return;
      }
      deps.stdout.write(`resumed ${what}: the next build publishes it again\n`);
      context.setExitCode(0);
    });
}
