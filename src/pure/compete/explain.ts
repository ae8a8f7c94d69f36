// The lines `ratefile explain` prints for a direction with a `compete:` block: the feed's age, the field around
// the place, the target, each clamp, the rate chosen and the place it gets. Every rate is said in the direction's
// own form, the one its exports publish: to per from (1:X), or from per to (X:1) for a rate below 1.
import { Decimal, formatDecimal } from '../../base/decimal.js';
import type { Direction } from '../../model/config.js';
import { compareToRow, rateOf } from './grid.js';
import type { Cap } from './cap.js';
import type { CityField, CompeteDetail } from './price.js';
import { rankrateOf } from './rankrate.js';
import { age, percent, show } from '../../base/words.js';

const ONE = new Decimal(1);
const form = (f: { in: Decimal; out: Decimal }) => `${formatDecimal(f.in)}:${formatDecimal(f.out)}`;

/** A rate (to per from) said in the direction's form: `give` when it publishes X:1 (from per to). */
export interface RateForm {
  give: boolean;
  unit: string;
  /** The number of a rate (to per from) in this form. */
  of(rate: Decimal): Decimal;
  /** How much less a client gets at `worse` than at `better` (both to per from), in this form, as a percentage. */
  cost(better: Decimal, worse: Decimal): string;
}

function rateForm(direction: Direction, published: { in: Decimal }): RateForm {
  const give = !published.in.equals(ONE);
  const [from, to] = [direction.from.code, direction.to.code];
  const pct = (value: Decimal) => `${formatDecimal(value.times(100).toSignificantDigits(4))}%`;
  return {
    give,
    unit: give ? `${from} per ${to}` : `${to} per ${from}`,
    // 34 of the 40 digits: 1 ÷ (1 ÷ x) is x again, not x and a trailing 1 in the 40th digit.
    of: (rate) => (give ? ONE.div(rate).toSignificantDigits(34) : rate),
    // give: the client pays that much more per unit; else he gets that much less per unit sent.
    cost: (better, worse) => pct(give ? better.div(worse).minus(1) : ONE.minus(worse.div(better))),
  };
}

/** The rows around where the chosen rate lands (and the rival), each marked counted or why not. */
function fieldLines(field: CityField, detail: CompeteDetail, direction: Direction, rf: RateForm): string[] {
  const { entries } = field;
  const { unit } = rf;
  const say = (rate: Decimal) => `${show(rf.of(rate))} ${unit}`;
  // By rankrate, rows are placed by it (give = rankrate, get = 1) and so is ours.
  const placed = detail.rankrate ? { in: detail.rankrate, out: new Decimal(1) } : detail.chosen;
  const ours = entries.findIndex((entry) => compareToRow(placed, entry.row) > 0);
  const at = ours === -1 ? entries.length : ours;
  const rival = field.rival ? entries.findIndex((entry) => entry.row === field.rival!.row) : -1;
  const first = Math.max(0, Math.min(at, rival === -1 ? at : rival) - 3);
  const last = Math.min(entries.length, Math.max(at, rival) + 3);
  const where =
    field.city !== undefined
      ? ` in ${field.city}`
      : direction.cities.length > 0
        ? ' (every city: the feed has no cities)'
        : '';
  const lines = [
    `  Field${where}: ${entries.length} rows, ${field.counted.length} counted${field.median ? `; median of the top ${Math.min(5, field.counted.length)} ${show(rf.of(field.median))}, ${formatDecimal(field.median.minus(detail.market).abs().div(detail.market).times(100).toDecimalPlaces(2))}% from the market (limit ${percent(detail.rule.deviation)})` : ''}`,
  ];
  if (first > 0) lines.push(`    … ${first} better rows`);
  let place = 1 + entries.slice(0, first).filter((entry) => entry.excluded === undefined).length;
  for (let i = first; i <= last; i++) {
    if (i === at)
      lines.push(
        `    → ours ${form(detail.chosen)} = ${say(rateOf(detail.chosen))}${detail.rankrate ? `, rankrate ${show(detail.rankrate.toSignificantDigits(34))} with our fees` : ''}: place ${field.place}`,
      );
    const entry = entries[i];
    if (!entry || i === last) continue;
    const { row } = entry;
    const mark = entry.excluded
      ? `not counted: ${entry.excluded}`
      : `place ${place++}${entry === entries[rival] ? ', the place to hold' : ''}`;
    // A rankrate is in give form (from per to): in a give-form direction it is its own rate with fees.
    const rate =
      row.bare === undefined
        ? `${row.give}:${row.get} = ${say(entry.rate)}`
        : rf.give
          ? `rankrate ${row.give} ${unit} with its fees, rate ${row.bare}`
          : `rankrate ${row.give} (= ${say(entry.rate)} with its fees), rate ${row.bare}`;
    lines.push(
      `    ${row.exchanger} (#${row.exchangerId}): ${rate}, reserve ${row.reserve} ${direction.to.code}${row.min !== undefined && row.max !== undefined ? `, orders ${row.min}–${row.max} ${direction.from.code}` : ''}; ${mark}`,
    );
  }
  if (last < entries.length) lines.push(`    … ${entries.length - last} worse rows`);
  lines.push(...targetLines(field, detail, direction, rf));
  return lines;
}

/**
 * The target: the rival's rate, better by the step, then the step published. By rankrate the rival's rate has its
 * fees in it and ours is compared with our fees in it, so what our fees cost gets a line of its own: the gap
 * between the target and our rate is then the fees' and the rounding's, each said.
 */
function targetLines(field: CityField, detail: CompeteDetail, direction: Direction, rf: RateForm): string[] {
  const say = (rate: Decimal) => `${show(rf.of(rate))} ${rf.unit}`;
  const { rule } = detail;
  if (!field.rival || !field.target || (!field.needed && field.unbeatable === undefined))
    return [
      `  Target: ${field.counted.length} counted, fewer than place ${rule.worst}: any rate holds it, so the ceiling`,
    ];
  const ranked = detail.order === 'rankrate';
  // A rankrate is give form (from per to): in a give-form direction it is the rival's rate with its fees as it is.
  const gives = !ranked
    ? say(field.rival.rate)
    : rf.give
      ? `rankrate ${field.rival.row.give} ${rf.unit}, its rate with its fees`
      : `${say(field.rival.rate)} with its fees (rankrate ${field.rival.row.give})`;
  const head = `  Target: the competitor at place ${rule.worst} gives ${gives}; better by ${percent(rule.step)}: ${say(field.target)}${ranked ? ' with our fees' : ''}`;
  if (!field.needed) return [`${head}; no published rate beats it: ${field.unbeatable}`];
  const needed = rateOf(field.needed);
  const own =
    ranked && detail.fees && detail.referenceAmount
      ? rankrateOf(field.needed, detail.fees, detail.referenceAmount)
      : undefined;
  if (!own)
    return [
      `${head}; rounded against the client, and strictly better than the competitor: ${form(field.needed)} = ${say(needed)}`,
    ];
  const withFees = ONE.div(own);
  const fees = `fromfee ${direction.fromfee ?? 'none'}, tofee ${direction.tofee ?? 'none'}, minfee ${direction.minfee ?? 'none'}`;
  const rounded = `  Rounded against the client, and strictly better than the competitor with our fees: ${form(field.needed)} = ${say(needed)}`;
  // Without fees of ours the rate is its own rankrate: only the rounding is left to say.
  if (own.minus(ONE.div(needed)).abs().lte(own.times('1e-30')))
    return [
      head,
      `${rounded} (no fees of ours; ${rf.cost(field.target, needed).replace(/^-/, '')} off the target by rounding)`,
    ];
  return [
    head,
    `  Our fees (${fees}, on $300 = ${show(detail.referenceAmount!)} ${direction.from.asset}) cost the client ${rf.cost(needed, withFees)}: a rate of ${say(needed)} ranks as ${say(withFees)}`,
    `${rounded} (${say(withFees)} with our fees, ${rf.cost(field.target, withFees).replace(/^-/, '')} off the target by rounding)`,
  ];
}

/** Which order ranked the field: BestChange's rankrate (API v2) or the bare rate (info.zip). */
function orderLine(detail: CompeteDetail, direction: Direction): string {
  const standIn = detail.standIn === undefined ? '' : ` (${detail.standIn})`;
  if (detail.order !== 'rankrate') return `  Order: by the bare rate, get ÷ give (info.zip has no rankrate)${standIn}`;
  const amount = detail.referenceAmount ? ` = ${show(detail.referenceAmount)} ${direction.from.asset}` : '';
  return `  Order: by rankrate (API v2), the rate with fees at $300${amount}; ours with fromfee ${direction.fromfee ?? 'none'}, tofee ${direction.tofee ?? 'none'}, minfee ${direction.minfee ?? 'none'}`;
}

/**
 * The cap by rankrate: the field's rates are 1 ÷ rankrate (their fees in them), so the cap is said as such a rate and
 * then as our own rate whose rankrate with our fees is the cap's, the one published.
 */
function rankedCapLine(cap: Cap, detail: CompeteDetail, direction: Direction, rf: RateForm): string {
  const k = detail.rule.cap ? formatDecimal(detail.rule.cap) : '0';
  const { row } = cap.rest;
  const where = cap.city === undefined ? '' : ` in ${cap.city}`;
  if (rf.give)
    return `  Cap${where}: the best of the rest, ${row.exchanger}, gives rankrate ${row.give} ${rf.unit} with its fees${row.bare === undefined ? '' : ` (rate ${row.bare})`}; ${capSteps(cap, k, rf)} with fees; our rate at that rankrate with our fees: ${show(rf.of(cap.own))} ${rf.unit} → step ${form(cap.form)}`;
  const unit = `${direction.to.code} per ${direction.from.code}`;
  return `  Cap${where}: the best of the rest, ${row.exchanger}, gives rankrate ${row.give} (= ${show(cap.rest.rate)} ${unit} with its fees${row.bare === undefined ? '' : `, rate ${row.bare}`}); typical step ${show(cap.typicalStep)} ${unit} (median gap of the top ten, by rankrate); at most ${show(cap.rest.rate)} + ${k} × ${show(cap.typicalStep)} = ${show(cap.rate)} ${unit} with fees; our rate at that rankrate with our fees: ${show(cap.own)} ${unit} → step ${form(cap.form)}`;
}

/**
 * A cap's steps in give form: the typical step (a gap of rates, to per from) as a share of the rest's rate, so
 * the cap is the rest's rate divided by (1 + k × that share), exactly rest + k × step in the other form.
 */
function capSteps(cap: Cap, k: string, rf: RateForm): string {
  const share = cap.typicalStep.div(cap.rest.rate).times(100);
  return `typical step ${show(share)}% of its rate (median gap of the top ten); at most ${k} steps more generous: ${show(rf.of(cap.rest.rate))} ÷ (1 + ${k} × ${show(share)}%) = ${show(rf.of(cap.rate))} ${rf.unit}`;
}

/** The first line: the feed, the place held, the step, and what the field counts and leaves out. */
function headLine(detail: CompeteDetail, direction: Direction): string {
  const { rule, outcome } = detail;
  const feedAge = outcome.feedAgeSeconds === undefined ? 'age unknown' : `${age(outcome.feedAgeSeconds)} old`;
  const counted = detail.minReserve
    ? `; counted: competitors with a reserve of at least ${show(detail.minReserve)} ${direction.to.code}`
    : '';
  const left = [
    rule.selfIds && rule.selfIds.size > 0 ? `our own listing (self) #${[...rule.selfIds].join(', #')}` : undefined,
    rule.ignore.length > 0 ? `ignored ${rule.ignore.join(', ')}` : undefined,
  ].filter(Boolean);
  return `Compete on BestChange (feed ${rule.source}, ${feedAge}): hold place ${rule.target}${rule.best === rule.worst ? '' : ` (its worst, ${rule.worst}, is held)`}, step ${percent(rule.step)}${counted}${left.length > 0 ? `; not counted: ${left.join('; ')}` : ''}`;
}

/** Floor and ceiling in the direction's form: at most (or at least, from per to) the market less each. */
function boundLines(detail: CompeteDetail, rf: RateForm): string[] {
  const { rule, market } = detail;
  if (!rf.give)
    return [
      `  Floor ${percent(rule.floor)}: at most market ${show(market)} × (1 − ${formatDecimal(rule.floor)}) = ${show(detail.floorRate)} → step ${form(detail.floorForm)}`,
      `  Ceiling ${percent(rule.ceiling)}: at least ${show(market)} × (1 − ${formatDecimal(rule.ceiling)}) = ${show(detail.ceilingRate)} → step ${form(detail.ceilingForm)}`,
    ];
  const m = show(rf.of(market));
  return [
    `  Floor ${percent(rule.floor)}: at least market ${m} ÷ (1 − ${formatDecimal(rule.floor)}) = ${show(rf.of(detail.floorRate))} ${rf.unit} → step ${form(detail.floorForm)}`,
    `  Ceiling ${percent(rule.ceiling)}: at most ${m} ÷ (1 − ${formatDecimal(rule.ceiling)}) = ${show(rf.of(detail.ceilingRate))} ${rf.unit} → step ${form(detail.ceilingForm)}`,
  ];
}

export function competeLines(detail: CompeteDetail, direction: Direction): string[] {
  const { rule, outcome } = detail;
  const rf = rateForm(direction, detail.chosen);
  const say = (rate: Decimal) => `${show(rf.of(rate))} ${rf.unit}`;
  const lines = [headLine(detail, direction), orderLine(detail, direction), ...boundLines(detail, rf)];
  for (const field of detail.fields) lines.push(...fieldLines(field, detail, direction, rf));
  for (const cap of detail.caps ?? []) {
    if (cap.ranked) {
      lines.push(rankedCapLine(cap, detail, direction, rf));
      continue;
    }
    const where = cap.city === undefined ? '' : ` in ${cap.city}`;
    const k = rule.cap ? formatDecimal(rule.cap) : '0';
    lines.push(
      rf.give
        ? `  Cap${where}: the best of the rest, ${cap.rest.row.exchanger}, gives ${say(cap.rest.rate)}; ${capSteps(cap, k, rf)} → step ${form(cap.form)}`
        : `  Cap${where}: the best of the rest, ${cap.rest.row.exchanger}, gives ${show(cap.rest.rate)}; typical step ${show(cap.typicalStep)} (median gap of the top ten); at most ${show(cap.rest.rate)} + ${k} × ${show(cap.typicalStep)} = ${show(cap.rate)} → step ${form(cap.form)}`,
    );
  }
  if (detail.war && detail.hold) {
    lines.push(
      `  PRICE WAR with ${detail.war.rival} (#${detail.war.rivalId}) since ${detail.war.since}: ${detail.war.rounds} of our moves answered in a row; never more generous than ${form(detail.hold)} until ${detail.war.until}`,
    );
  }
  if (outcome.basis === 'fallback') {
    lines.push(
      `  NOT TRUSTED: ${outcome.reason ?? ''}; priced at the normal margin ${percent(direction.margin)}: ${rf.give ? say(detail.marginRate) : show(detail.marginRate)}`,
    );
  } else {
    const clamp =
      outcome.basis === 'floor'
        ? `clamped to the floor: ${outcome.reason}`
        : outcome.basis === 'ceiling'
          ? `clamped to the ceiling: ${outcome.reason}`
          : outcome.basis === 'cap'
            ? `capped against an outlier: ${outcome.reason}`
            : outcome.basis === 'war'
              ? `held in a price war: ${outcome.reason}`
              : 'no clamp: the target lies between the ceiling and the floor';
    lines.push(`  ${clamp}`);
    lines.push(
      `  Rate ${form(detail.chosen)} = ${say(rateOf(detail.chosen))} (published as is by exports without a markup), place ${outcome.place} of ${outcome.competitors + 1}`,
    );
  }
  return lines;
}
