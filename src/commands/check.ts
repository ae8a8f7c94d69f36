// `ratefile check <file|url>...`: any exchanger's export file against the standard; exit 0 when it passes (warnings allowed,
// unless --strict), 1 on errors.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { quoteValue, RatefileError } from '../base/errors.js';
import { configOption, type CommandContext } from './context.js';

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
  const { parseFeed } = await import('../pure/bestchange/feed.js');
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

function wholeNumber(value: string): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < 1 || number > 64)
    throw new InvalidArgumentError('expected a whole number 1..64');
  return number;
}

interface CheckFlags {
  json?: boolean;
  strict?: boolean;
  timeout: number;
  codesFrom?: string;
  monitor?: string;
  links?: boolean;
  linkTimeout: number;
  concurrency: number;
  config: string;
}

export function register(program: Command, context: CommandContext): void {
  const { deps } = context;
  program
    .command('check')
    .description(
      "check export files (ours or any exchanger's) against the standard: XML, structure, numbers, rates, limits, labels, codes",
    )
    .argument(
      '[file|url...]',
      "export files or http(s) URLs (with --links, none: the config's exports with a url: template)",
    )
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
      '--links',
      'instead of the files, check the link of every item (<url>): list the ones that do not open a page (an error, a status other than 2xx, a redirect to the home page, a login page)',
    )
    .option('--link-timeout <seconds>', 'with --links: give up on one link after this long', parseSeconds, 10)
    .option('--concurrency <n>', 'with --links: links fetched at a time', wholeNumber, 4)
    .addOption(configOption())
    .option(
      '--codes-from <info.zip>',
      "a BestChange info.zip: its currency codes (bm_cycodes.dat) count as known besides ratefile's list",
    )
    .action(async (targets: string[], options: CheckFlags) => {
      if (options.links) {
        const { checkItemLinks } = await import('./check-links.js');
        return checkItemLinks(context, targets, options);
      }
      if (targets.length === 0)
        throw new RatefileError(
          'E_USAGE',
          "check: missing required argument 'file|url': name at least one export file or URL (or use --links)",
        );
      const { checkFiles } = await import('./check-files.js');
      const codes = options.codesFrom === undefined ? undefined : await codesFrom(options.codesFrom, deps.cwd);
      const monitor =
        options.monitor === undefined
          ? undefined
          : await (await import('../io/monitors/load.js')).profileNamed(options.monitor);
      // One file at a time, its report written before the next is read (check-files.ts: many files in worker
      // threads), so many files take the memory of the largest, not of all of them.
      const ok = await checkFiles(targets, deps.stdout, {
        fetch: deps.fetch,
        cwd: deps.cwd,
        timeoutMs: options.timeout * 1000,
        userAgent: (await import('../base/requests.js')).defaultUserAgent(),
        strict: options.strict === true,
        json: options.json === true,
        ...(codes ? { codes } : {}),
        ...(monitor ? { monitor } : {}),
      });
      context.setExitCode(ok ? 0 : 1);
    });
}
