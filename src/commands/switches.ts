// `ratefile pause` and `ratefile resume`: switch a direction (or one city of it) off and on again. Each pause is a
// file in the state folder, like accept and maintenance, so the CLI and the running service never race.
import type { Command } from 'commander';
import { RatefileError, quoteValue } from '../errors.js';
import { checkStateFolder } from '../folders.js';
import type { Config, Direction } from '../model.js';
import type { Pause } from '../switches.js';
import { configOption, type CommandContext } from './context.js';

const durationPattern = /^(\d+)\s?(m|h|d)$/;
const units: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `--until`: an ISO time with its offset ("2026-11-22T09:00:00+03:00") or a duration from now ("30m", "2h", "1d"). */
export function parseUntil(text: string, now: Date): Date {
  const relative = durationPattern.exec(text.trim());
  const at = relative
    ? new Date(now.getTime() + Number(relative[1]) * units[relative[2]!]!)
    : /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(text)
      ? new Date(text)
      : undefined;
  if (!at || Number.isNaN(at.getTime())) {
    throw new RatefileError(
      'E_USAGE',
      `--until: expected a time like "2026-11-22T09:00:00+03:00" or a duration like "30m", "2h", got ${quoteValue(text)}`,
    );
  }
  if (at.getTime() <= now.getTime())
    throw new RatefileError('E_USAGE', `--until: ${quoteValue(text)} is not in the future`);
  return at;
}

function findDirection(config: Config, from: string, to: string, shown: string): Direction {
  const id = `${from}>${to}`;
  const direction = config.directions.find((d) => d.id === id);
  if (!direction) throw new RatefileError('E_USAGE', `no direction ${quoteValue(id)} in ${shown}`);
  return direction;
}

function checkCity(direction: Direction, name: string, city: string | undefined): void {
  if (city === undefined || direction.cities.includes(city)) return;
  const cities = direction.cities.length > 0 ? `its cities are ${direction.cities.join(', ')}` : 'it has no cities';
  throw new RatefileError('E_USAGE', `${name} has no city ${quoteValue(city)}: ${cities}`);
}

export function registerSwitches(program: Command, context: CommandContext): void {
  const { deps } = context;

  program
    .command('pause')
    .description(
      'stop publishing a direction (or one city of it) until resumed or until a time; shown as paused, not as a fault',
    )
    .argument('<from>', 'from currency code')
    .argument('<to>', 'to currency code')
    .option('--city <code>', 'pause only this city of a cash direction')
    .option('--until <time>', 'resume by itself at this time (ISO 8601 with offset) or after this long (30m, 2h, 1d)')
    .option('--reason <text>', 'why, shown in status and the dashboard')
    .addOption(configOption())
    .action(
      async (from: string, to: string, options: { city?: string; until?: string; reason?: string; config: string }) => {
        const config = await context.load(options.config);
        const direction = findDirection(config, from, to, context.shown(config.file));
        // Loaded with the action, as decimal.js behind it: `--help` stays light (test/integration/startup.test.ts).
        const { directionName } = await import('../words.js');
        const name = directionName(direction.from.code, direction.to.code);
        checkCity(direction, name, options.city);
        const now = deps.now();
        const until = options.until === undefined ? undefined : parseUntil(options.until, now);
        const reason = options.reason?.trim();
        // The reason is shown on status lines and in the page: one short line of text.
        if (
          reason !== undefined &&
          (reason === '' || reason.length > 200 || /[\u0000-\u001f\u007f-\u009f]/.test(reason))
        ) {
          throw new RatefileError('E_USAGE', '--reason: expected one line of at most 200 characters');
        }
        await checkStateFolder({ key: 'state', path: config.stateDir });
        const { writePause } = await import('../state.js');
        const pause: Pause = {
          direction: direction.id,
          ...(options.city === undefined ? {} : { city: options.city }),
          since: now.toISOString(),
          ...(until ? { until: until.toISOString() } : {}),
          ...(reason === undefined ? {} : { reason }),
        };
        await writePause(config.stateDir, pause);
        const what = `${name}${options.city === undefined ? '' : ` in ${options.city}`}`;
        deps.stdout.write(
          `paused ${what}${until ? ` until ${until.toISOString()}` : ''}: the next build withholds it\n`,
        );
        context.setExitCode(0);
      },
    );

  program
    .command('resume')
    .description('publish a paused direction again (every city of it, or only --city)')
    .argument('<from>', 'from currency code')
    .argument('<to>', 'to currency code')
    .option('--city <code>', 'resume only this city')
    .addOption(configOption())
    .action(async (from: string, to: string, options: { city?: string; config: string }) => {
      const config = await context.load(options.config);
      const direction = findDirection(config, from, to, context.shown(config.file));
      const { directionName } = await import('../words.js');
      const name = directionName(direction.from.code, direction.to.code);
      checkCity(direction, name, options.city);
      const { removePauses } = await import('../state.js');
      const removed = await removePauses(config.stateDir, direction.id, options.city);
      const what = `${name}${options.city === undefined ? '' : ` in ${options.city}`}`;
      if (removed === 0) {
        deps.stdout.write(`${what} is not paused: nothing to resume\n`);
        context.setExitCode(1);
        return;
      }
      deps.stdout.write(`resumed ${what}: the next build publishes it again\n`);
      context.setExitCode(0);
    });
}
