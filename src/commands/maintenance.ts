// `ratefile maintenance [on|off]`: publish every export empty, or normally again; without an argument, tell which.
import { Argument, type Command } from 'commander';
import { RatefileError } from '../base/errors.js';
import { checkStateFolder } from '../base/folders.js';
import { configOption, type CommandContext } from './context.js';

export function register(program: Command, context: CommandContext): void {
  const { deps } = context;
  program
    .command('maintenance')
    .description('publish every export empty (on) or normally again (off); without an argument, tell which')
    // The choices show in --help and `ratefile completion` offers them; the action says what is wrong with another word.
    .addArgument(new Argument('[state]', 'on or off').choices(['on', 'off']).argParser((state: string) => state))
    .addOption(configOption())
    .action(async (state: string | undefined, options: { config: string }) => {
      if (state !== undefined && state !== 'on' && state !== 'off')
        throw new RatefileError('E_USAGE', `expected "on" or "off", got "${state}"`);
      const { maintenanceFlag, setMaintenanceFlag } = await import('../io/state/state.js');
      const config = await context.load(options.config);
      if (state !== undefined) {
        await checkStateFolder({ key: 'state', path: config.stateDir });
        await setMaintenanceFlag(config.stateDir, state === 'on', deps.now());
      }
      const flag = await maintenanceFlag(config.stateDir);
      const on = flag || config.maintenance;
      const why = config.maintenance ? ' (set by `maintenance: true` in the config)' : '';
      deps.stdout.write(
        `maintenance is ${on ? 'on' : 'off'}${why}${state === undefined ? '' : '; it applies from the next build'}\n`,
      );
      context.setExitCode(0);
    });
}
