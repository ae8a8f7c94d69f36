// `ratefile accept FROM TO`: publish a direction the jump guard holds back at its new rate on the next build.
import type { Command } from 'commander';
import { RatefileError } from '../base/errors.js';
import { checkStateFolder } from '../base/folders.js';
import { configOption, type CommandContext } from './context.js';

export function register(program: Command, context: CommandContext): void {
  const { deps } = context;
  program
    .command('accept')
    .description('publish a direction held back by the jump guard at its new rate on the next build')
    .argument('<from>', 'from currency code')
    .argument('<to>', 'to currency code')
    .addOption(configOption())
    .action(async (from: string, to: string, options: { config: string }) => {
      const [{ readStatus }, { requestAccept }, { directionName }] = await Promise.all([
        import('../io/build/cycle.js'),
        import('../io/state/state.js'),
        import('../base/words.js'),
      ]);
      const config = await context.load(options.config);
      const id = `${from}>${to}`;
      const name = directionName(from, to);
      if (!config.directions.some((direction) => direction.id === id)) {
        throw new RatefileError('E_USAGE', `no direction ${name} in ${context.shown(config.file)}`);
      }
      // A request for a direction that is published would wave through its next jump unseen: refuse it.
      const status = await readStatus(config.stateDir);
      if (status && !status.heldBack.some((held) => held.direction === id)) {
        deps.stdout.write(`${name} is not held back (last build ${status.lastBuild.at}): nothing to accept\n`);
        context.setExitCode(1);
        return;
      }
      await checkStateFolder({ key: 'state', path: config.stateDir });
      await requestAccept(config.stateDir, id);
      deps.stdout.write(`accepted ${name}: the next build publishes its new rate and makes it the reference\n`);
      context.setExitCode(0);
    });
}
