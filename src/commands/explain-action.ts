// What `ratefile explain FROM TO` runs (registered in explain.ts, imported only when it runs): how a direction's published
// rate comes about (quotes, chain, margin, markup, rounding, reserve, limits), or why it is held back. Builds in memory
// with the state as it is; writes nothing. The pricing lines are explain-pricing.ts's, the exports' explain-exports.ts's.
import { build, type BuildResult } from '../io/build/build.js';
import { closest } from '../base/config/problems.js';
import { escapeControls, RatefileError } from '../base/errors.js';
import type { Config, Direction, ExportTemplate } from '../model/config.js';
import type { PricedDirection } from '../model/priced.js';
import type { QuoteBook } from '../model/source.js';
import { priceDirection } from '../pure/pricing/price.js';
import type { BuildReport, Status } from '../pure/status/report.js';
import { redactSecrets } from '../base/secrets.js';
import { acceptRequests, maintenanceFlag, readGuardState, readPauses, readStatusFile } from '../io/state/state.js';
import { listingSummary } from '../pure/status/status.js';
import { readWarMemory, warDirections } from '../io/state/war-state.js';
import { ago, directionName, plural } from '../base/words.js';
import type { CommandContext } from './context.js';
import { exportLines } from './explain-exports.js';
import { pricingLines } from './explain-pricing.js';
import { derivationLines } from '../pure/rates/explain.js';

/** The direction FROM>TO, also by a code an export publishes in its place (an alias), or a usage error with a hint. */
export function findDirection(config: Config, from: string, to: string, shownFile = config.file): Direction {
  const codes = (code: string) => [
    code,
    ...config.exports.flatMap((e) =>
      Object.entries(e.aliases)
        .filter(([, alias]) => alias === code)
        .map(([own]) => own),
    ),
  ];
  for (const f of codes(from.toUpperCase())) {
    for (const t of codes(to.toUpperCase())) {
      const direction = config.directions.find((d) => d.from.code === f && d.to.code === t);
      if (direction) return direction;
    }
  }
  const [f, t] = [from.toUpperCase(), to.toUpperCase()];
  const fromHere = config.directions.filter((d) => d.from.code === f).map((d) => d.to.code);
  const toThere = config.directions.filter((d) => d.to.code === t).map((d) => d.from.code);
  const hint = closest(
    `${f}>${t}`,
    config.directions.map((d) => d.id),
  );
  const help = hint
    ? `did you mean ${hint.replace('>', ' ')}?`
    : fromHere.length > 0
      ? `directions from ${f} go to ${fromHere.join(', ')}`
      : toThere.length > 0
        ? `directions to ${t} come from ${toThere.join(', ')}`
        : `the config's codes are ${[...config.currencies.keys()].join(', ')}`;
  throw new RatefileError('E_USAGE', `no direction ${directionName(f, t)} in ${shownFile}: ${help}`);
}

function chooseExports(config: Config, name: string | undefined): readonly ExportTemplate[] {
  if (name === undefined) return config.exports;
  const found = config.exports.find((e) => e.name === name || e.file === name);
  if (!found)
    throw new RatefileError(
      'E_USAGE',
      `no export "${name}"; the exports are ${config.exports.map((e) => e.name).join(', ')}`,
    );
  return [found];
}

/**
 * The monitor's view (`self:`): how BestChange listed this direction at the last build, from the status file (the
 * comparison needs the published history, so explain's own build in memory does not redo it). None without one.
 */
async function listingLines(stateDir: string, direction: Direction, city: string | undefined, at: Date) {
  const status = (await readStatusFile(stateDir).catch(() => undefined)) as Status | undefined;
  return (status?.listing ?? [])
    .filter((view) => view.direction === direction.id && (city === undefined || view.city === city))
    .map(
      (view) =>
        `  As BestChange lists us${view.city ? ` in ${view.city}` : ''} (feed ${view.source}, last build ${ago(status!.lastBuild.at, at)}): ${listingSummary(view, at)}`,
    );
}

export interface ExplainOptions {
  city?: string;
  export?: string;
  config: string;
}

/** The direction, the exports and the city the command names, each checked against the config. */
function chosenTarget(
  config: Config,
  shownFile: string,
  codes: { from: string; to: string },
  options: ExplainOptions,
): { direction: Direction; templates: readonly ExportTemplate[]; city: string | undefined } {
  const direction = findDirection(config, codes.from, codes.to, shownFile);
  const templates = chooseExports(config, options.export);
  const city = options.city?.toUpperCase();
  if (city !== undefined && !direction.cities.includes(city)) {
    const cities = direction.cities.length > 0 ? `its cities are ${direction.cities.join(', ')}` : 'it has no cities';
    throw new RatefileError(
      'E_USAGE',
      `${directionName(direction.from.code, direction.to.code)} has no city ${options.city}: ${cities}`,
    );
  }
  return { direction, templates, city };
}

/** A build in memory with the state folder as it is (guard, accepts, maintenance, pauses, wars); writes nothing. */
async function buildAsItStands(context: CommandContext, config: Config): Promise<{ result: BuildResult; at: Date }> {
  const { deps } = context;
  const [guardFile, accepted, maintenance, pauses, warFile] = await Promise.all([
    readGuardState(config.stateDir),
    acceptRequests(config.stateDir),
    maintenanceFlag(config.stateDir),
    readPauses(config.stateDir),
    readWarMemory(config.stateDir, warDirections(config)),
  ]);
  const at = deps.now();
  const result = await build(config, {
    now: () => at,
    fetch: deps.fetch,
    env: deps.env,
    guard: { state: guardFile.state, accepted, maintenance, pauses, wars: warFile.memory },
  });
  return { result, at };
}

function sourcesLine(report: BuildReport): string {
  return `Sources: ${report.sources.map((s) => `${s.name} (${s.type}) ${s.ok ? `ok, ${s.rows === undefined ? plural(s.quotes, 'quote') : `feed of ${s.rows} rows`}` : `FAILING: ${s.error ?? 'unknown error'}`}`).join('; ') || 'none asked'}`;
}

/** The pricing, then each chosen export's items; published when some export carries the direction. */
function publishedLines(
  result: BuildResult,
  priced: PricedDirection,
  explained: { templates: readonly ExportTemplate[]; city: string | undefined; listing: string[]; at: Date },
): { lines: string[]; published: boolean } {
  const lines = pricingLines(
    priced,
    explained.at,
    result.report.competition?.get(priced.direction.id),
    explained.listing,
    result.report.rates,
    explained.templates,
    soleSourceOf(result.report, priced.direction.id),
  );
  let published = false;
  for (const template of explained.templates) {
    const exported = exportLines(result, template, priced, explained.city);
    lines.push(...exported.lines);
    published ||= exported.published;
  }
  return { lines, published };
}

/** The group of directions one source alone sets that holds this one, if any. */
const soleSourceOf = (report: BuildReport, id: string) =>
  report.soleSource?.find((group) => group.directions.some((priced) => priced.direction.id === id));

/**
 * Held back: the direction as the build priced it (before its reference and the guards), else priced again on the
 * build's own quote book, never on a new fetch: the quotes explained are the ones the build saw.
 */
function withheldLines(
  report: BuildReport,
  direction: Direction,
  explained: { listing: string[]; at: Date },
): string[] {
  const book: QuoteBook = report.book ?? new Map();
  const derivations = report.rates;
  const detail = report.competition?.get(direction.id);
  const sole = soleSourceOf(report, direction.id);
  // A competing direction held by a guard: the rate the compete step chose, not the margin's.
  const again =
    report.checked?.find((priced) => priced.direction.id === direction.id) ??
    detail?.priced ??
    priceDirection(direction, book);
  if (!('reason' in again))
    return [
      ...pricingLines(again, explained.at, detail, explained.listing, derivations, [], sole),
      'These are the values it would have.',
    ];
  // A pair of `rates:` that could not be made: why, term by term.
  const missing = derivations.filter((d) => d.missing !== undefined && again.reason.includes(`no quote for ${d.pair}`));
  if (missing.length > 0)
    return missing.flatMap((d) => [
      `${d.pair} could not be made:`,
      ...derivationLines(d, derivations, explained.at, '  '),
    ]);
  const chain = direction.chain
    ? `the config's chain ${direction.chain.join(', ')}`
    : `a chain from ${direction.from.asset} to ${direction.to.asset}`;
  const pairs = [...book.keys()].filter((pair) =>
    pair.split('/').some((asset) => asset === direction.from.asset || asset === direction.to.asset),
  );
  return [
    `Pricing needs ${chain}; quotes touching ${direction.from.asset} or ${direction.to.asset}: ${pairs.join(', ') || 'none'}`,
  ];
}

/** The lines of `ratefile explain FROM TO`, written to stdout; exit 0 when some export publishes the direction. */
export async function explainDirection(
  context: CommandContext,
  fromCode: string,
  toCode: string,
  options: ExplainOptions,
): Promise<void> {
  const config = await context.load(options.config);
  const shownFile = context.shown(config.file);
  const { direction, templates, city } = chosenTarget(config, shownFile, { from: fromCode, to: toCode }, options);
  const { result, at } = await buildAsItStands(context, config);
  const { report } = result;
  const priced = report.priced.find((p) => p.direction.id === direction.id);
  const withheld = report.withheld.find((w) => w.direction.id === direction.id);
  // Held back is the answer: said on the first line, before the lines that explain it (and again at the end).
  const held = report.maintenance
    ? 'maintenance is on, every export is published empty (ratefile maintenance off)'
    : priced
      ? undefined
      : (withheld?.reason ?? 'not priced');
  const out: string[] = [
    `${directionName(direction.from.code, direction.to.code)}: ${held === undefined ? '' : `HELD BACK: ${held}\n  `}directions[${direction.index}] of ${shownFile}, built in memory at ${at.toISOString()}`,
    sourcesLine(report),
  ];
  const listing = await listingLines(config.stateDir, direction, city, at);
  let published = false;
  if (report.maintenance) out.push(`HELD BACK: ${held}`);
  else if (priced) {
    const explained = publishedLines(result, priced, { templates, city, listing, at });
    out.push(...explained.lines);
    published = explained.published;
  } else out.push(...withheldLines(report, direction, { listing, at }), `HELD BACK: ${held}`);
  // Lines come from code; what they quote (a feed's exchanger names, sources' answers) never drives the terminal or shows a credential.
  const lines = out.flatMap((line) => line.split('\n')).map((line) => escapeControls(redactSecrets(line)));
  context.deps.stdout.write(`${lines.join('\n')}\n`);
  context.setExitCode(published ? 0 : 1);
}
