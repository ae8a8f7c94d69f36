// `ratefile pause FROM TO`: stop publishing a direction (or one city of it) until resumed or until a time.
import type { Command } from 'commander';
import { RatefileError, quoteValue } from '../base/errors.js';
import { checkStateFolder } from '../base/folders.js';
import type { Pause } from '../pure/pause/switches.js';
import { configOption, type CommandContext } from './context.js';
import { switchedDirection } from './switches.js';

interface PauseOptions {
  city?: string;
  until?: string;
  reason?: string;
  config: string;
}

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

/** `--reason`, trimmed: it is shown on status lines and in the page, so one short line of text. */
function parseReason(text: string | undefined): string | undefined {
  const reason = text?.trim();
  if (reason !== undefined && (reason === '' || reason.length > 200 || /[\u0000-\u001f\u007f-\u009f]/.test(reason))) {
    throw new RatefileError('E_USAGE', '--reason: expected one line of at most 200 characters');
  }
  return reason;
}

async function pause(context: CommandContext, from: string, to: string, options: PauseOptions): Promise<void> {
  const { deps } = context;
  const config = await context.load(options.config);
  const { direction, what } = await switchedDirection(config, context.shown(config.file), {
    from,
    to,
    city: options.city,
  });
  const now = deps.now();
  const until = options.until === undefined ? undefined : parseUntil(options.until, now);
  const reason = parseReason(options.reason);
  await checkStateFolder({ key: 'state', path: config.stateDir });
  const { writePause } = await import('../io/state/state.js');
  const paused: Pause = {
    direction: direction.id,
    ...(options.city === undefined ? {} : { city: options.city }),
    since: now.toISOString(),
    ...(until ? { until: until.toISOString() } : {}),
    ...(reason === undefined ? {} : { reason }),
  };
  await writePause(config.stateDir, paused);
  deps.stdout.write(`paused ${what}${until ? ` until ${until.toISOString()}` : ''}: the next build withholds it\n`);
  context.setExitCode(0);
}

export function register(program: Command, context: CommandContext): void {
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
    .action((from: string, to: string, options: PauseOptions) => pause(context, from, to, options));
}
