// What `ratefile explain FROM TO` runs (registered in explain.ts, imported only when it runs): how a direction's published
// rate comes about (quotes, chain, margin, markup, rounding, reserve, limits), or why it is held back. Builds in memory
// with the state as it is; writes nothing.
import { build } from '../build.js';
import { closest } from '../config/problems.js';
import { Decimal, formatDecimal, roundDown } from '../decimal.js';
import { escapeControls, RatefileError } from '../errors.js';
import { redactSecrets } from '../secrets.js';
import type { Config, Direction, ExportTemplate, Money } from '../model.js';
import { priceDirection } from '../pricing/price.js';
import { fetchQuotes } from '../quotes.js';
import { listingSummary } from '../status.js';
import type { Status } from '../report.js';
import { acceptRequests, maintenanceFlag, readGuardState, readPauses, readStatusFile } from '../state.js';
import { readWarMemory, warDirections } from '../war-state.js';
import type { CommandContext } from './context.js';
import { exportLines } from './explain-exports.js';
import { competeLines } from '../compete/explain.js';
import type { CompeteDetail } from '../compete/price.js';
import type { PricedDirection } from '../priced.js';
import { age, ago, directionName, percent, plural, show } from '../words.js';

const ONE = new Decimal(1);
/** 1 ÷ x to 34 of the 40 digits: 1 ÷ (1 ÷ x) is x again. */
const inverse = (x: Decimal) => ONE.div(x).toSignificantDigits(34);

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

function describeLimit(limit: Money, direction: Direction, rate: Decimal): string {
  const given = `${formatDecimal(limit.value)} ${limit.asset}`;
  if (limit.asset === direction.from.asset)
    return direction.from.code === limit.asset
      ? `${given}, in the from currency`
      : `${given}, the from currency's asset: ${formatDecimal(limit.value)} ${direction.from.code}`;
  if (limit.asset === direction.to.asset)
    return rate.lessThan(1)
      ? `${given} × the published rate ${show(inverse(rate))} ${direction.from.code} per ${direction.to.code} = ${show(limit.value.div(rate))} ${direction.from.code}`
      : `${given} ÷ the published rate ${show(rate)} = ${show(limit.value.div(rate))} ${direction.from.code}`;
  return `${given}, converted to ${direction.from.asset} through the quotes`;
}

function pricingLines(
  priced: PricedDirection,
  at: Date,
  compete?: CompeteDetail,
  listing: readonly string[] = [],
): string[] {
  const { direction, steps, market, rate } = priced;
  const { from, to } = direction;
  // The form its exports publish: X:1 (from per to) for a rate below 1.
  const give = !priced.published.rate.form.in.equals(ONE);
  const lines: string[] = [];
  if (steps.length === 0) {
    lines.push(`Market: ${from.code} and ${to.code} are both ${from.asset}, so the market rate is 1 (no quote needed)`);
  } else {
    lines.push(
      `Quotes (chain ${direction.chain ? 'given in the config' : 'found in the quote book'}: ${steps.map((s) => s.pair).join(', ')}):`,
    );
    let asset = from.asset;
    for (const step of steps) {
      const { quote } = step;
      const selling = quote.base === asset;
      const price = quote[step.side];
      lines.push(
        `  ${quote.pair} from ${quote.source}: bid ${formatDecimal(quote.bid)}, ask ${formatDecimal(quote.ask)}, ${age((at.getTime() - quote.time.getTime()) / 1000)} old (${quote.time.toISOString()})`,
      );
      lines.push(
        selling
          ? `    ${asset} → ${quote.quote}: sell ${quote.base} at the bid, × ${formatDecimal(price)}`
          : `    ${asset} → ${quote.base}: buy ${quote.base} at the ask, ÷ ${formatDecimal(price)}`,
      );
      asset = selling ? quote.quote : quote.base;
    }
    // In the direction's form: 1 BTC = 5000100 RUB for SBERRUB → BTC, as its exports publish it (X:1).
    lines.push(
      give
        ? `Market: 1 ${to.asset} = ${show(inverse(market))} ${from.asset} (at every step the side worse for the client)`
        : `Market: 1 ${from.asset} = ${show(market)} ${to.asset} (at every step the side worse for the client)`,
    );
  }
  if (compete) lines.push(...competeLines(compete, direction), ...listing);
  else
    lines.push(
      give
        ? `Margin ${percent(direction.margin)} against the client: ${show(inverse(market))} ÷ (1 − ${formatDecimal(direction.margin)}) = ${show(inverse(rate))} ${from.code} per ${to.code}`
        : `Margin ${percent(direction.margin)} against the client: ${show(market)} × (1 − ${formatDecimal(direction.margin)}) = ${show(rate)} ${to.code} per ${from.code}`,
    );
  const own =
    direction.reserveSource !== undefined
      ? `read from ${direction.reserveSource}`
      : direction.reserve.equals(to.reserve)
        ? `${to.code}'s reserve`
        : 'set on the direction';
  // Limits hold at the rate as published (in:out), not the unrounded one; each export's at its own.
  const { form } = priced.published.rate;
  const { limits } = priced.published;
  const published = form.out.div(form.in);
  const amount = roundDown(direction.reserve, to.precision);
  lines.push(
    `Reserve: ${formatDecimal(direction.reserve)} ${to.code} (${own}), rounded down to ${to.precision} places → <amount>${formatDecimal(roundDown(direction.reserve, to.precision))}</amount>`,
  );
  lines.push(
    `Limits, in ${from.code} at the published rate ${formatDecimal(form.in)}:${formatDecimal(form.out)} (${from.precision} places; minimum rounded up, maximum down; an export with a markup at its own rate):`,
  );
  lines.push(
    direction.min && limits.min !== undefined
      ? `  min ${describeLimit(direction.min, direction, published)} → <minamount>${formatDecimal(limits.min)}</minamount>`
      : '  min: none set, so no <minamount>',
  );
  const capacity = amount.div(published);
  lines.push(
    give
      ? `  the <amount> pays at most ${formatDecimal(amount)} × ${formatDecimal(form.in)} = ${show(capacity)} ${from.code}`
      : `  the <amount> pays at most ${formatDecimal(amount)} ÷ ${show(published)} = ${show(capacity)} ${from.code}`,
  );
  lines.push(
    direction.max
      ? `  max ${describeLimit(direction.max, direction, published)}; the smaller of the two → <maxamount>${formatDecimal(limits.max)}</maxamount>`
      : `  max: none set, so the reserve's → <maxamount>${formatDecimal(limits.max)}</maxamount>`,
  );
  const extras = [
    direction.params.length > 0 ? `labels ${direction.params.join(', ')}` : undefined,
    direction.fromfee ? `fromfee ${direction.fromfee}` : undefined,
    direction.tofee ? `tofee ${direction.tofee}` : undefined,
    direction.minfee ? `minfee ${direction.minfee}` : undefined,
    direction.floating !== undefined ? `floating ${direction.floating}` : undefined,
    direction.delay !== undefined ? `delay ${direction.delay} min` : undefined,
    direction.cities.length > 0 ? `cities ${direction.cities.join(', ')}` : undefined,
  ].filter((part) => part !== undefined);
  if (extras.length > 0) lines.push(`Also published: ${extras.join('; ')}`);
  if (direction.tiers && priced.tierRates) {
    lines.push(
      'Tiers (EREF 1.1 <step>s; every format lists the first, and its range ends below a tier worse for the client):',
    );
    direction.tiers.forEach((tier, i) =>
      lines.push(
        `  from ${formatDecimal(tier.from)} ${from.code}: margin ${percent(tier.margin)} → ${show(priced.tierRates![i]!)} ${to.code} per ${from.code}`,
      ),
    );
  }
  return lines;
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

/** The lines of `ratefile explain FROM TO`, written to stdout; exit 0 when some export publishes the direction. */
export async function explainDirection(
  context: CommandContext,
  fromCode: string,
  toCode: string,
  options: ExplainOptions,
): Promise<void> {
  const { deps } = context;
  const config = await context.load(options.config);
  const direction = findDirection(config, fromCode, toCode, context.shown(config.file));
  const templates = chooseExports(config, options.export);
  const city = options.city?.toUpperCase();
  if (city !== undefined && !direction.cities.includes(city)) {
    const cities = direction.cities.length > 0 ? `its cities are ${direction.cities.join(', ')}` : 'it has no cities';
    throw new RatefileError(
      'E_USAGE',
      `${directionName(direction.from.code, direction.to.code)} has no city ${options.city}: ${cities}`,
    );
  }
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
    `${directionName(direction.from.code, direction.to.code)}: ${held === undefined ? '' : `HELD BACK: ${held}\n  `}directions[${direction.index}] of ${context.shown(config.file)}, built in memory at ${at.toISOString()}`,
  ];
  out.push(
    `Sources: ${report.sources.map((s) => `${s.name} (${s.type}) ${s.ok ? `ok, ${s.rows === undefined ? plural(s.quotes, 'quote') : `feed of ${s.rows} rows`}` : `FAILING: ${s.error ?? 'unknown error'}`}`).join('; ') || 'none asked'}`,
  );
  const listing = await listingLines(config.stateDir, direction, city, at);
  let published = false;
  if (report.maintenance) {
    out.push(`HELD BACK: ${held}`);
  } else if (priced) {
    out.push(...pricingLines(priced, at, report.competition?.get(direction.id), listing));
    for (const template of templates) {
      const explained = exportLines(result, template, priced, city);
      out.push(...explained.lines);
      published ||= explained.published;
    }
  } else {
    // Held back: price it again on a fresh quote book to show the rate the guards stopped, when there is one.
    const { book } = await fetchQuotes(config.sources, {
      configDir: config.dir,
      fetch: deps.fetch,
      env: deps.env,
      now: () => at,
    });
    const detail = report.competition?.get(direction.id);
    // A competing direction held by a guard: the rate the compete step chose, not the margin's.
    const again = detail?.priced ?? priceDirection(direction, book);
    if ('reason' in again) {
      const chain = direction.chain
        ? `the config's chain ${direction.chain.join(', ')}`
        : `a chain from ${direction.from.asset} to ${direction.to.asset}`;
      const pairs = [...book.keys()].filter((pair) =>
        pair.split('/').some((asset) => asset === direction.from.asset || asset === direction.to.asset),
      );
      out.push(
        `Pricing needs ${chain}; quotes touching ${direction.from.asset} or ${direction.to.asset}: ${pairs.join(', ') || 'none'}`,
      );
    } else {
      out.push(...pricingLines(again, at, detail, listing), 'These are the values it would have.');
    }
    out.push(`HELD BACK: ${held}`);
  }
  // Lines come from code; what they quote (a feed's exchanger names, sources' answers) never drives the terminal or shows a credential.
  const lines = out.flatMap((line) => line.split('\n')).map((line) => escapeControls(redactSecrets(line)));
  deps.stdout.write(`${lines.join('\n')}\n`);
  context.setExitCode(published ? 0 : 1);
}
