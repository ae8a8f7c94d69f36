// `ratefile accept`, `ratefile maintenance` and `ratefile status`: the operator's hand on a running exchanger.
import type { Command } from 'commander';
import { escapeControls, escapeJsonControls, RatefileError } from '../errors.js';
import { mapStrings, redactValue } from '../secrets.js';
import { checkStateFolder } from '../folders.js';
import { configOption, type CommandContext } from './context.js';

export function registerOperate(program: Command, context: CommandContext): void {
  const { deps } = context;

  program
    .command('accept')
    .description('publish a direction held back by the jump guard at its new rate on the next build')
    .argument('<from>', 'from currency code')
    .argument('<to>', 'to currency code')
    .addOption(configOption())
    .action(async (from: string, to: string, options: { config: string }) => {
      const [{ readStatus }, { requestAccept }, { directionName }] = await Promise.all([
        import('../cycle.js'),
        import('../state.js'),
        import('../words.js'),
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

  program
    .command('maintenance')
    .description('publish every export empty (on) or normally again (off); without an argument, tell which')
    .argument('[state]', 'on or off')
    .addOption(configOption())
    .action(async (state: string | undefined, options: { config: string }) => {
      if (state !== undefined && state !== 'on' && state !== 'off')
        throw new RatefileError('E_USAGE', `expected "on" or "off", got "${state}"`);
      const { maintenanceFlag, setMaintenanceFlag } = await import('../state.js');
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

  program
    .command('status')
    .description('last build, sources, and directions published or held back with reasons')
    .option('--json', 'print the status as JSON (what /healthz serves)')
    .addOption(configOption())
    .action(async (options: { json?: boolean; config: string }) => {
      const [{ readStatus }, { assessHealth, healthBody }, { formatMonitors, formatStatus, monitorStatuses }, store] =
        await Promise.all([
          import('../cycle.js'),
          import('../health.js'),
          import('../status.js'),
          import('../readers/store.js'),
        ]);
      const config = await context.load(options.config);
      // The file may be hand-edited (a pause's reason) or older than a redaction: no control character or credential is printed.
      const status = redactValue(await readStatus(config.stateDir));
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
      if (options.json) {
        const json = JSON.stringify(
          {
            ...healthBody(health, status),
            ...(expected.length > 0 ? { monitors } : {}),
          },
          null,
          2,
        );
        deps.stdout.write(`${escapeJsonControls(json)}\n`);
      } else
        deps.stdout.write(
          formatStatus(mapStrings(status, escapeControls), now) +
            formatMonitors(mapStrings(monitors, escapeControls), now),
        );
      // Exit 0 only for ok: degraded and failing both need the operator.
      context.setExitCode(health.level === 'ok' ? 0 : 1);
    });
}
