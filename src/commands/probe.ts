// `ratefile probe URL`: fetch a public export as a monitor's robot does, N times in a row, and report what each fetch got
// and a summary fit to send to a monitor's support; exit 0 when every fetch was a readable rate file within every
// monitor's timeout, 1 otherwise.
import { InvalidArgumentError, Option, type Command } from 'commander';
import { quoteValue, RatefileError } from '../base/errors.js';
import { redactValue, registerUrlSecrets } from '../base/secrets.js';
import { configOption, type CommandContext } from './context.js';

const DEFAULT_MAX_BYTES = 20 * 1024 * 1024;

function wholeNumber(min: number, max: number) {
  return (value: string): number => {
    const number = Number(value);
    if (!/^\d+$/.test(value) || number < min || number > max)
      throw new InvalidArgumentError(`expected a whole number ${min}..${max}`);
    return number;
  };
}

/** Seconds up to `max`; zero only where it means "none" (`--pause 0`). */
function seconds(max: number, zero: boolean) {
  return (value: string): number => {
    const number = Number(value);
    if (!/^\d+(\.\d+)?$/.test(value) || number > max || (number === 0 && !zero))
      throw new InvalidArgumentError(`expected a number of seconds, ${zero ? '0' : 'more than 0'} to ${max}`);
    return number;
  };
}

interface ProbeFlags {
  count: number;
  pause: number;
  timeout: number;
  deadline: number;
  maxBytes: number;
  maxRedirects: number;
  format?: 'classic' | 'eref' | 'json';
  userAgent?: string;
  json?: boolean;
  config: string;
}

/** The URL to probe: http or https, or a usage error. Its credentials are secrets from here on. */
function probedUrl(target: string): URL {
  registerUrlSecrets(target);
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new RatefileError('E_USAGE', `probe: ${quoteValue(target)} is not a URL; expected http(s)://host/path`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new RatefileError('E_USAGE', `probe: ${quoteValue(target)}: expected an http or https URL`);
  return url;
}

/**
 * Beside the config (the default file, RATEFILE_CONFIG or --config): the export the URL names, as published here,
 * and the schedule period; none without a config file there or when the URL names no export of it.
 */
async function besideConfig(context: CommandContext, url: URL, path: string) {
  const { existsSync } = await import('node:fs');
  const { resolve } = await import('node:path');
  if (!existsSync(resolve(context.deps.cwd, path))) return undefined;
  const config = await context.load(path);
  const { exportNamed, localCopyReader } = await import('../io/probe/local.js');
  const file = exportNamed(config, url);
  const { userAgent } = config;
  if (file === undefined)
    return { userAgent, note: `${url.pathname} names none of the exports of ${context.shown(config.file)}` };
  return {
    userAgent,
    local: { file, periodMs: config.schedulePeriodMs },
    read: localCopyReader(config, file, context.deps.now),
  };
}

/** N fetches in a row, each reported as it ends (unless --json), then the summary; exit 0 when every one was good. */
async function probe(context: CommandContext, target: string, options: ProbeFlags): Promise<void> {
  const { deps } = context;
  const url = probedUrl(target);
  const { runProbe } = await import('../io/probe/run.js');
  const { summarise } = await import('../pure/probe/summary.js');
  const { contentTypeRules, monitorTimeouts } = await import('../pure/probe/classify.js');
  const { loadProfiles } = await import('../io/monitors/load.js');
  const contentTypes = contentTypeRules((await loadProfiles()).values());
  const { formatFetch, formatHeader, formatSummary } = await import('../pure/probe/report.js');
  const beside = await besideConfig(context, url, options.config);
  const { defaultUserAgent, monitorLikeAgent } = await import('../base/requests.js');
  const userAgent = options.userAgent ?? monitorLikeAgent(beside?.userAgent ?? defaultUserAgent());
  const at = deps.now().toISOString();
  if (!options.json)
    deps.stdout.write(
      `${formatHeader(target, at, userAgent, options.count, options.timeout * 1000, monitorTimeouts)}\n`,
    );
  const fetches = await runProbe(
    url,
    {
      count: options.count,
      pauseMs: options.pause * 1000,
      timeoutMs: options.timeout * 1000,
      deadlineMs: options.deadline * 1000,
      maxBytes: options.maxBytes,
      maxRedirects: options.maxRedirects,
      userAgent,
      ...(options.format ? { format: options.format } : {}),
      timeouts: monitorTimeouts,
      contentTypes,
      ...(beside?.read ? { local: beside.read } : {}),
    },
    (fetch) => {
      if (!options.json) deps.stdout.write(`${formatFetch(fetch)}\n`);
    },
  );
  const summary = summarise(target, at, userAgent, fetches, {
    timeouts: monitorTimeouts,
    timeoutMs: options.timeout * 1000,
    ...(beside?.local ? { local: beside.local } : {}),
  });
  if (beside?.note) summary.notes.push(`${beside.note}: the copy is not compared with a build`);
  // Digests stay in the data (they tell fetches apart); a URL's credentials never leave the process.
  deps.stdout.write(
    options.json ? `${JSON.stringify(redactValue({ summary, fetches }), null, 2)}\n` : formatSummary(summary),
  );
  context.setExitCode(summary.ok ? 0 : 1);
}

export function register(program: Command, context: CommandContext): void {
  program
    .command('probe')
    .description(
      "fetch a public export as a monitor's robot does, N times in a row: what each fetch got (a rate file, a challenge page, an empty body, an error…), ETag/304 behaviour, a cache in front (Age, cf-cache-status, X-Cache, Via) and, beside the config, whether the copy is older than one build; a summary for a monitor's support",
    )
    .argument('<url>', 'the export as the monitors fetch it: an http(s) URL')
    .option('-n, --count <n>', 'fetches one after another', wholeNumber(1, 1000), 20)
    .option('--pause <seconds>', 'pause between fetches', seconds(600, true), 0)
    .option(
      '--timeout <seconds>',
      "give up on one fetch after this long, body included (above the monitors' own timeouts, so a slow answer is still timed)",
      seconds(300, false),
      20,
    )
    .option(
      '--deadline <seconds>',
      'stop the whole probe after this long; fetches not made by then count as failed',
      seconds(3600, false),
      300,
    )
    .option(
      '--max-bytes <bytes>',
      'stop reading a body beyond this many bytes (decompressed)',
      wholeNumber(1, 1_000_000_000),
      DEFAULT_MAX_BYTES,
    )
    .option(
      '--max-redirects <n>',
      'redirects followed in one fetch (0: none, like a robot that does not follow them)',
      wholeNumber(0, 20),
      5,
    )
    .addOption(
      new Option(
        '--format <format>',
        'the format the monitor reads (default: any of the three, told by content)',
      ).choices(['classic', 'eref', 'json']),
    )
    .option(
      '--user-agent <text>',
      "the User-Agent to send, e.g. a monitor's own as your access log shows it (default: the config's userAgent, else ratefile/VERSION, saying what it is)",
    )
    .option('--json', 'print every fetch and the summary as JSON')
    .addOption(configOption())
    .action((target: string, options: ProbeFlags) => probe(context, target, options));
}
