// `ratefile check <file|url>...`: any exchanger's export file against the standard; exit 0 when it passes (warnings allowed,
// unless --strict), 1 on errors.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { quoteValue, RatefileError } from '../errors.js';
import type { CommandContext } from './context.js';
import type { Writer } from '../log.js';

/** The currency codes of a BestChange info.zip (bm_cycodes.dat): known besides the shipped list. */
async function codesFrom(file: string, cwd: string): Promise<ReadonlySet<string>> {
  let bytes: Buffer;
  try {
    bytes = await readFile(resolve(cwd, file));
  } catch (cause) {
    throw new RatefileError(
      'E_USAGE',
      `--codes-from ${quoteValue(file)}: cannot read it: ${(cause as Error).message}`,
      { cause },
    );
  }
  const { parseFeed } = await import('../bestchange/feed.js');
  try {
    return parseFeed(bytes).currencies;
  } catch (cause) {
    throw new RatefileError(
      'E_USAGE',
      `--codes-from ${quoteValue(file)}: expected a BestChange info.zip: ${(cause as Error).message}`,
      { cause },
    );
  }
}

function parseSeconds(value: string): number {
  const seconds = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || seconds <= 0)
    throw new InvalidArgumentError('expected a positive number of seconds');
  return seconds;
}

/** Until a stream that refused more (write gave false) wants more again, or is gone. */
function drained(stream: Writer): Promise<void> {
  const events = stream as Partial<Pick<NodeJS.EventEmitter, 'once' | 'off'>>;
  if (typeof events.once !== 'function' || typeof events.off !== 'function') return Promise.resolve();
  const { once, off } = { once: events.once.bind(stream), off: events.off.bind(stream) };
  return new Promise((resolve) => {
    const done = () => {
      for (const event of ['drain', 'close', 'error']) off(event, done);
      resolve();
    };
    for (const event of ['drain', 'close', 'error']) once(event, done);
  });
}

export function registerCheck(program: Command, context: CommandContext): void {
  const { deps } = context;
  program
    .command('check')
    .description(
      "check export files (ours or any exchanger's) against the standard: XML, structure, numbers, rates, limits, labels, codes",
    )
    .argument('<file|url...>', 'export files or http(s) URLs')
    .option('--json', 'print the findings as JSON')
    .option(
      '--strict',
      'for your own files: every warning is an error (departures from the standard monitors tolerate too)',
    )
    .option(
      '--monitor <name>',
      "also predict what that monitor's parser does with each file: items it reads, drops or misreads, and why (profiles in data/monitors/)",
    )
    .option('--timeout <seconds>', 'give up on a URL after this long', parseSeconds, 20)
    .option(
      '--codes-from <info.zip>',
      "a BestChange info.zip: its currency codes (bm_cycodes.dat) count as known besides ratefile's list",
    )
    .action(
      async (
        targets: string[],
        options: { json?: boolean; strict?: boolean; timeout: number; codesFrom?: string; monitor?: string },
      ) => {
        const { checkTarget, everyWarningFails, reportWriter } = await import('../check/index.js');
        const codes = options.codesFrom === undefined ? undefined : await codesFrom(options.codesFrom, deps.cwd);
        const monitor =
          options.monitor === undefined
            ? undefined
            : await (await import('../monitors/load.js')).profileNamed(options.monitor);
        // One file at a time, its report written before the next is read: a file's text, document and findings are
        // garbage once it is reported, so many files take the memory of the largest, not of all of them.
        let full = false;
        const report = reportWriter((text) => {
          if (deps.stdout.write(text) === false) full = true;
        }, options.json === true);
        for (const target of targets) {
          const checked = await checkTarget(target, {
            fetch: deps.fetch,
            cwd: deps.cwd,
            timeoutMs: options.timeout * 1000,
            ...(codes ? { codes } : {}),
            ...(monitor ? { monitor } : {}),
          });
          report.add(options.strict ? everyWarningFails(checked) : checked);
          // A pipe read slowly (`| less`) would otherwise queue every file's report in memory.
          if (full) await drained(deps.stdout);
          full = false;
        }
        context.setExitCode(report.end() ? 0 : 1);
      },
    );
}
