// `ratefile status`: the last build, the sources, and the directions published or held back with reasons.
import type { Command } from 'commander';
import { escapeControls, escapeJsonControls } from '../base/errors.js';
import { mapStrings, redactValue } from '../base/secrets.js';
import { configOption, type CommandContext } from './context.js';
import { RatefileError } from '../base/errors.js';
import type { Config } from '../model/config.js';

export function register(program: Command, context: CommandContext): void {
  const { deps } = context;
  program
    .command('status')
    .description('last build, sources, and directions published or held back with reasons')
    .option('--json', 'print the status as JSON (what /healthz serves)')
    .option('--rate <codes...>', "FROM TO: that direction's published rate over the archive's window")
    .addOption(configOption())
    .action(async (options: { json?: boolean; config: string; rate?: string[] }) => {
      const [
        { readStatus },
        { assessHealth, exitCodeOf, healthBody },
        { formatMonitors, formatStatus, monitorStatuses },
        store,
        { readOutside },
        { formatOutside },
        { archiveLines },
        { readVerified },
      ] = await Promise.all([
        import('../io/build/cycle.js'),
        import('../pure/status/health.js'),
        import('../pure/status/status.js'),
        import('../io/readers/store.js'),
        import('../io/watch/store.js'),
        import('../pure/watch/lines.js'),
        import('../pure/archive/lines.js'),
        import('../io/archive/archive.js'),
      ]);
      const config = await context.load(options.config);
      if (options.rate) return rateOverWindow(context, config, options.rate, options.json === true);
      // The file may be hand-edited (a pause's reason) or older than a redaction: no control character or credential is printed.
      const built = redactValue(await readStatus(config.stateDir));
      // `ratefile archive verify` run since the last build: its verdict, not the one the build saw.
      const verified = built?.archive ? await readVerified(config.stateDir) : undefined;
      const status =
        built?.archive && verified && (!built.archive.verified || verified.at > built.archive.verified.at)
          ? { ...built, archive: { ...built.archive, verified } }
          : built;
      const now = deps.now();
      const health = assessHealth(status, now);
      // The expected monitors, judged from the fetches the service saved (`monitors:`; the service is another process).
      const expected = config.monitors ?? [];
      const saved =
        expected.length === 0
          ? undefined
          : await store.savedWatches(
              config.stateDir,
              expected,
              config.exports.map((e) => e.file),
              now.getTime(),
            );
      const monitors = redactValue(saved ? monitorStatuses(saved.watches, now) : []);
      if (saved?.problem) deps.stderr.write(`${escapeControls(saved.problem)}\n`);
      // The public copies as the service last judged them (`watch:`).
      const watched = config.watch?.exports ?? {};
      const outside = config.watch ? redactValue(await readOutside(config.stateDir)) : undefined;
      const outsideChecks = Object.keys(watched).flatMap((file) => outside?.checks[file] ?? []);
      if (options.json) {
        const json = JSON.stringify(
          {
            ...healthBody(health, status),
            ...(expected.length > 0 ? { monitors } : {}),
            ...(config.watch ? { outside: outsideChecks } : {}),
          },
          null,
          2,
        );
        deps.stdout.write(`${escapeJsonControls(json)}\n`);
      } else
        deps.stdout.write(
          formatStatus(mapStrings(status, escapeControls), now) +
            formatMonitors(mapStrings(monitors, escapeControls), now) +
            formatOutside(redactValue(watched), mapStrings(outside?.checks ?? {}, escapeControls), now) +
            archiveLines(mapStrings(status?.archive, escapeControls), now),
        );
      // Exit 0 only for ok: degraded and failing both need the operator.
      context.setExitCode(exitCodeOf(health));
    });
}

/** `status --rate FROM TO`: the direction's published rate at the archive's whole records over its window. */
async function rateOverWindow(context: CommandContext, config: Config, codes: string[], json: boolean): Promise<void> {
  if (codes.length !== 2) throw new RatefileError('E_USAGE', '--rate: expected two currency codes, FROM TO');
  const [{ readArchive }, { seriesLines }, { findDirection }, { directionName }] = await Promise.all([
    import('../io/archive/archive.js'),
    import('../pure/archive/lines.js'),
    import('./explain-action.js'),
    import('../base/words.js'),
  ]);
  const [from, to] = codes.map((code) => code.toUpperCase()) as [string, string];
  const direction = findDirection(config, from, to);
  const reader = await readArchive(config, context.deps.env);
  try {
    const now = context.deps.now().getTime();
    const points = await reader.series(direction.id, now - config.archive.windowMs, now);
    context.deps.stdout.write(
      json
        ? `${JSON.stringify({ direction: direction.id, points }, null, 2)}\n`
        : seriesLines(directionName(from, to), points),
    );
  } finally {
    await reader.store.close();
  }
}
