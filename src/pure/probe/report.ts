// `ratefile probe`'s words: a line per fetch as it ends, then a short summary fit to send to a monitor's support
// ("20/20 sequential fetches were a readable rate file …" with the figures). Pure: data in, lines out; every line
// is redacted and stripped of control characters, since headers, titles and URLs come from the server.
import { escapeControls, quoteValue } from '../../base/errors.js';
import { redactSecrets } from '../../base/secrets.js';
import { age, plural } from '../../base/words.js';
import { failureNames, formatNames, timeoutWords, type FailureKind, type MonitorTimeout } from './classify.js';
import type { ConditionalOutcome, MonitorTiming, ProbeFetch, ProbeSummary } from './summary.js';
import { servedFromCache, type CacheFacts, type CacheSummary } from './cache.js';

const safe = (text: string) => escapeControls(redactSecrets(text));

/** "MoneySwap gives up after 5 s, go-para after 3.6 s". */
export function giveUpWords(timeouts: readonly { monitor: string; ms: number }[]): string {
  return timeouts
    .map((timeout, i) => `${timeout.monitor}${i === 0 ? ' gives up' : ''} after ${timeoutWords(timeout.ms)}`)
    .join(', ');
}

const timingsAsTimeouts = (timings: readonly MonitorTiming[]) =>
  timings.map((timing) => ({ monitor: timing.monitor, ms: timing.timeoutMs }));

/** What to do about each kind, in a few words; the ones about time name the monitors' own timeouts. */
function hintFor(kind: FailureKind, timings: readonly MonitorTiming[], advice?: string): string {
  if (kind === 'stale-copy') return advice ?? 'a cache in front keeps the copy longer than one build';
  if (kind !== 'timeout' && kind !== 'too-slow') return hints[kind];
  const shortest = [...timings].sort((a, b) => a.timeoutMs - b.timeoutMs)[0];
  const under = shortest ? ` (${shortest.monitor} gives up after ${timeoutWords(shortest.timeoutMs)})` : '';
  return `the whole file, body included, must come within every monitor's timeout${under}: serve it as a static, compressed file, not built per request`;
}

const hints: Record<Exclude<FailureKind, 'timeout' | 'too-slow' | 'stale-copy'>, string> = {
  'cloudflare-challenge':
    "a monitor's robot runs no JavaScript: add a WAF skip rule for the export's path (or allow Cloudflare's verified bots)",
  'antibot-page':
    "exempt the export path from the host's or the DDoS filter's browser check: robots run no scripts and keep no cookies",
  'redirect-page': 'serve the file itself at this URL, or give the monitors the URL the page points to',
  'engine-error': 'the engine or the site answered with an error or maintenance page instead of the file',
  html: 'the URL serves a web page, not the export: check the path and any rewrite that sends unknown paths to the site',
  'empty-body': 'a 200 with nothing in it: a file read while being rewritten, or a script that failed',
  'refused-type':
    "serve the export as application/xml (a JSON one as application/json): the web server's type for the path, not a script's or a page's",
  redirect: 'register the final URL with the monitors: not every robot follows redirects',
  'connection-error': 'the server refused or dropped the connection',
  'tls-error': 'check the certificate (full chain, not expired, matching the host name) and the TLS versions offered',
  'http-status': 'monitors read only a 200 with the file',
  'too-large': 'an export file is kilobytes; raise --max-bytes only if yours really is this large',
  'not-a-rate-file': 'the body is neither classic XML, EREF 1.1 nor JSON rates',
  'wrong-format': 'give this monitor the URL of the export in the format it reads',
  'invalid-rate-file': '`ratefile check URL` lists every finding',
  'not-made': 'raise --deadline, or lower --count or --pause',
};

export const duration = (ms: number): string => (ms < 10_000 ? `${ms} ms` : age(ms / 1000));

/** One fetch, one line: number, status, content type, time, size, what it was. */
export function formatFetch(fetch: ProbeFetch): string {
  const status = fetch.status === undefined ? '-' : String(fetch.status);
  const type = fetch.conditional?.header ?? fetch.contentType?.split(';')[0]?.trim() ?? '-';
  // A 304 names the encoding of a body it does not carry: nothing came to show.
  const wire = fetch.contentEncoding && fetch.wireBytes > 0 ? ` (${fetch.wireBytes} ${fetch.contentEncoding})` : '';
  const size = fetch.status === undefined ? '-' : `${fetch.bytes} B${wire}`;
  const redirected = fetch.redirects.length > 0 ? `, after ${plural(fetch.redirects.length, 'redirect')}` : '';
  let what: string;
  if (fetch.notModified) what = 'not modified';
  else if (fetch.failure) what = `FAIL ${failureNames[fetch.failure.kind]}: ${fetch.failure.detail}`;
  else
    what = `${formatNames[fetch.format!]}, ${plural(fetch.items ?? 0, 'item')}${fetch.warnings ? `, ${plural(fetch.warnings, 'warning')}` : ''}`;
  const cached = servedFromCache(fetch.cache) ? `, from a cache${cacheMark(fetch.cache!)}` : '';
  return safe(
    `${String(fetch.index).padStart(4)}  ${status.padEnd(3)}  ${type.padEnd(20)} ${duration(fetch.ms).padStart(8)}  ${size.padEnd(18)} ${what}${redirected}${cached}`,
  );
}

export function formatHeader(
  url: string,
  at: string,
  userAgent: string,
  count: number,
  timeoutMs: number,
  timeouts: readonly MonitorTimeout[],
): string {
  const judged = timeouts.length > 0 ? `; each judged against the monitors' timeouts: ${giveUpWords(timeouts)}` : '';
  return [
    safe(`Probe of ${quoteValue(url)}, ${at.slice(0, 16).replace('T', ' ')} UTC`),
    safe(
      `${plural(count, 'fetch', 'fetches')} one after another, as a monitor makes them: no cookies, a new connection each, Accept-Encoding: gzip, User-Agent ${quoteValue(userAgent)}, timeout ${duration(timeoutMs)}${judged}`,
    ),
    '',
    `   #  st.  content type         time      size               result`,
  ].join('\n');
}

const list = (numbers: readonly number[]) =>
  numbers.length > 8 ? `${numbers.slice(0, 8).join(', ')}, …` : numbers.join(', ');

function conditionalLine(outcome: ConditionalOutcome): string {
  const asked = `${outcome.header}: ${outcome.value}`;
  if (outcome.outcome === 'not-modified') return `${asked} → 304 Not Modified`;
  if (outcome.outcome === 'full-body')
    return `${asked} → ${outcome.status} with the whole file again (the validator is ignored)`;
  return `${asked} → ${outcome.detail}`;
}

/** "Monitors' timeouts: MoneySwap gives up after 5 s, go-para after 3.6 s: 2 of 7 fetches took longer (…)." */
function monitorsLine(summary: ProbeSummary): string | undefined {
  if (summary.monitors.length === 0) return undefined;
  const made = summary.fetches + summary.validators.conditional.length - (notMade(summary) ?? 0);
  const slower = new Set(summary.monitors.flatMap((timing) => timing.slower));
  const head = `Monitors' timeouts: ${giveUpWords(timingsAsTimeouts(summary.monitors))}`;
  if (slower.size === 0) return `${head}: every fetch came in time.`;
  const which = summary.monitors
    .filter((timing) => timing.slower.length > 0)
    .map((timing) => `${timing.monitor}: ${timing.slower.length === 1 ? 'fetch' : 'fetches'} ${list(timing.slower)}`)
    .join('; ');
  return `${head}: ${slower.size} of ${made} fetches took longer (${which}).`;
}

const notMade = (summary: ProbeSummary) => summary.failures.find((failure) => failure.kind === 'not-made')?.count;

/** The summary, a few lines a monitor's support can read. */
export function formatSummary(summary: ProbeSummary): string {
  const lines: string[] = ['', resultLine(summary)];
  for (const failure of summary.failures) {
    lines.push(
      `  ${failure.count} × ${failure.name} (${failure.kind}), ${failure.count === 1 ? 'fetch' : 'fetches'} ${list(failure.fetches)}: ${failure.detail}`,
    );
    lines.push(`      → ${hintFor(failure.kind, summary.monitors, summary.cache.advice)}`);
  }
  for (const line of [
    timeLine(summary),
    monitorsLine(summary),
    statusesLine(summary),
    validatorsLine(summary),
    ratesLine(summary),
    redirectsLine(summary),
    ...cacheLines(
      summary.cache,
      summary.failures.some((failure) => failure.kind === 'stale-copy'),
    ),
  ])
    if (line) lines.push(line);
  for (const note of summary.notes) lines.push(`Note: ${note}.`);
  lines.push(verdictLine(summary));
  return `${lines.map(safe).join('\n')}\n`;
}

/** "Result: 20/20 sequential fetches were a readable rate file (…)", or how many were not. */
function resultLine(summary: ProbeSummary): string {
  const plainFailures = summary.fetches - summary.readable;
  const conditional = summary.validators.conditional;
  const failedConditional = conditional.filter((outcome) => outcome.outcome === 'failed').length;
  if (plainFailures === 0 && failedConditional === 0) {
    const formats = summary.formats.map((format) => formatNames[format]).join(' and ');
    const items = summary.items
      ? summary.items.min === summary.items.max
        ? plural(summary.items.min, 'item')
        : `${summary.items.min}–${summary.items.max} items`
      : '';
    return `Result: ${summary.readable}/${summary.fetches} sequential fetches were a readable rate file (${formats}, ${items}, no errors in \`ratefile check\`): no timeouts, no empty responses, no challenge or error pages.`;
  }
  const conditionalFailures =
    failedConditional === 0 ? '' : `, nor ${failedConditional} of the ${conditional.length} conditional re-fetches`;
  return `Result: ${summary.readable}/${summary.fetches} sequential fetches were a readable rate file; ${plainFailures} ${plainFailures === 1 ? 'was' : 'were'} not${conditionalFailures}:`;
}

/** "Time: 120 ms min, 140 ms median, 300 ms max. Size: …" */
function timeLine(summary: ProbeSummary): string | undefined {
  if (!summary.timeMs) return undefined;
  const { min, median, max } = summary.timeMs;
  const size = summary.bytes
    ? ` Size: ${summary.bytes.max} bytes${summary.compressed && summary.wireBytes ? ` (${summary.wireBytes.max} on the wire, compressed)` : ''}.`
    : '';
  return `Time: ${duration(min)} min, ${duration(median)} median, ${duration(max)} max.${size}`;
}

/** "Statuses: 200 × 20; Content-Type: application/xml." */
function statusesLine(summary: ProbeSummary): string | undefined {
  const statuses = Object.entries(summary.statuses)
    .map(([status, count]) => `${status} × ${count}`)
    .join(', ');
  return statuses ? `Statuses: ${statuses}; Content-Type: ${summary.contentTypes.join(', ') || 'none'}.` : undefined;
}

/** "Validators: ETag …. Conditional re-fetch: …", when the server sent any. */
function validatorsLine(summary: ProbeSummary): string | undefined {
  const { etag, lastModified, conditional } = summary.validators;
  if (etag === undefined && lastModified === undefined) return undefined;
  const sent = [
    etag === undefined ? '' : `ETag ${etag}`,
    lastModified === undefined ? '' : `Last-Modified ${lastModified}`,
  ]
    .filter(Boolean)
    .join(', ');
  return `Validators: ${sent}. Conditional re-fetch: ${conditional.map(conditionalLine).join('; ') || 'not made'}.`;
}

/** Whether the rates stayed the same across the rate files fetched (more than one). */
function ratesLine(summary: ProbeSummary): string | undefined {
  if (summary.rates.files <= 1) return undefined;
  const { files, distinct, changedAt, bodies } = summary.rates;
  return distinct === 1
    ? `Rates: the same in all ${files} ${summary.readable === files ? 'readable fetches' : 'rate files fetched'}${bodies > 1 ? ` (${bodies} different bodies)` : ''}.`
    : `Rates: ${distinct} different sets; they changed at ${changedAt.length === 1 ? 'fetch' : 'fetches'} ${list(changedAt)} (expected while rates move).`;
}

/** " (HIT, Age 3400 s)". */
function cacheMark(facts: CacheFacts): string {
  const words = [
    facts.cfCacheStatus ?? facts.xCache?.split(/\s/)[0],
    facts.age === undefined ? undefined : `Age ${facts.age} s`,
  ].filter((word) => word !== undefined);
  return words.length > 0 ? ` (${words.join(', ')})` : '';
}

/** "Cache: …" (what the headers say of a cache), "Copy: …" (against the local export), and the advice. */
function cacheLines(cache: CacheSummary, adviceShown: boolean): string[] {
  const lines: string[] = [];
  if (cache.seen.length > 0 || cache.hits.length > 0) {
    const hits =
      cache.hits.length === 0
        ? 'no fetch came from a cache'
        : `${cache.hits.length === 1 ? 'fetch' : 'fetches'} ${list(cache.hits)} came from a cache${cache.maxAge === undefined ? '' : ` (Age up to ${cache.maxAge} s)`}`;
    lines.push(`Cache: ${hits}; ${cache.seen.join(', ') || 'no caching headers'}.`);
  }
  if (cache.local) {
    const { current, behind, stale, newer } = cache.copies;
    const parts = [
      current.length > 0 ? `${plural(current.length, 'fetch', 'fetches')} the latest build` : '',
      behind.length > 0 ? `${list(behind)} one build behind, within one schedule period` : '',
      stale.length > 0 ? `${list(stale)} older than one build` : '',
      newer.length > 0 ? `${list(newer)} newer than the local file (not the publishing folder?)` : '',
    ].filter(Boolean);
    lines.push(
      `Copy against ${cache.local.file} as published here: ${parts.join('; ') || 'no rate file came to compare'}.`,
    );
  }
  if (cache.advice && !adviceShown) lines.push(`      → ${cache.advice}`);
  return lines;
}

function redirectsLine(summary: ProbeSummary): string | undefined {
  if (summary.redirected.fetches <= 0) return undefined;
  const chain = summary.redirected.chain.map((hop) => `${hop.status} → ${quoteValue(hop.location)}`).join(', ');
  return `Redirects: ${summary.redirected.fetches} of ${summary.fetches} fetches were redirected (${chain}); register the final URL with the monitors.`;
}

/** The last line: every fetch readable, or why the probe exits 1. */
function verdictLine(summary: ProbeSummary): string {
  if (summary.ok) return 'Every fetch was readable.';
  const onlyTime = summary.failures.length > 0 && summary.failures.every((failure) => failure.kind === 'too-slow');
  return onlyTime
    ? "Every fetch was a readable rate file, but not within every monitor's timeout (exit 1)."
    : 'Not every fetch was readable (exit 1).';
}
