// `ratefile check <file|url>...`: any exchanger's export file against the standard; exit 0 when it passes (warnings allowed,
// unless --strict), 1 on errors.
import { InvalidArgumentError, type Command } from 'commander';
import { checkTarget, everyWarningFails, formatResults, passes, resultsJson } from '../check/index.js';
import type { CommandContext } from './context.js';

function parseSeconds(value: string): number {
  const seconds = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || seconds <= 0) throw new InvalidArgumentError('expected a positive number of seconds');
  return seconds;
}

export function registerCheck(program: Command, context: CommandContext): void {
  const { deps } = context;
  program
    .command('check')
    .description("check export files (ours or any exchanger's) against the standard: XML, structure, numbers, rates, limits, labels, codes")
    .argument('<file|url...>', 'export files or http(s) URLs')
    .option('--json', 'print the findings as JSON')
    .option('--strict', 'for your own files: every warning is an error (departures from the standard monitors tolerate too)')
    .option('--timeout <seconds>', 'give up on a URL after this long', parseSeconds, 20)
    .action(async (targets: string[], options: { json?: boolean; strict?: boolean; timeout: number }) => {
      const checked = await Promise.all(
        targets.map((target) => checkTarget(target, { fetch: deps.fetch, cwd: deps.cwd, timeoutMs: options.timeout * 1000 })),
      );
      const results = options.strict ? checked.map(everyWarningFails) : checked;
      deps.stdout.write(options.json ? resultsJson(results) : formatResults(results));
      context.setExitCode(results.every(passes) ? 0 : 1);
    });
}
