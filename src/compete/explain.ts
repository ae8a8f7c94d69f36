// The lines `ratefile explain` prints for a direction with a `compete:` block: the feed's age, the field around
// the place, the target, each clamp, the rate chosen and the place it gets.
import { Decimal, formatDecimal } from '../decimal.js';
import type { Direction } from '../model.js';
import { compareToRow, rateOf } from './grid.js';
import type { Cap } from './cap.js';
import type { CityField, CompeteDetail } from './price.js';
import { age, percent, show } from '../words.js';

const form = (f: { in: Decimal; out: Decimal }) => `${formatDecimal(f.in)}:${formatDecimal(f.out)}`;

/** The rows around where the chosen rate lands (and the rival), each marked counted or why not. */
function fieldLines(field: CityField, detail: CompeteDetail, direction: Direction): string[] {
  const { entries } = field;
  const unit = `${direction.to.code} per ${direction.from.code}`;
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
    `  Field${where}: ${entries.length} rows, ${field.counted.length} counted${field.median ? `; median of the top ${Math.min(5, field.counted.length)} ${show(field.median)}, ${formatDecimal(field.median.minus(detail.market).abs().div(detail.market).times(100).toDecimalPlaces(2))}% from the market (limit ${percent(detail.rule.deviation)})` : ''}`,
  ];
  if (first > 0) lines.push(`    … ${first} better rows`);
  let place = 1 + entries.slice(0, first).filter((entry) => entry.excluded === undefined).length;
  for (let i = first; i <= last; i++) {
    if (i === at)
      lines.push(
        `    → ours ${form(detail.chosen)} = ${show(rateOf(detail.chosen))} ${unit}${detail.rankrate ? `, rankrate ${show(detail.rankrate)} with our fees` : ''}: place ${field.place}`,
      );
    const entry = entries[i];
    if (!entry || i === last) continue;
    const { row } = entry;
    const mark = entry.excluded
      ? `not counted: ${entry.excluded}`
      : `place ${place++}${entry === entries[rival] ? ', the place to hold' : ''}`;
    const rate =
      row.bare === undefined
        ? `${row.give}:${row.get} = ${show(entry.rate)} ${unit}`
        : `rankrate ${row.give} (= ${show(entry.rate)} ${unit}), rate ${row.bare}`;
    lines.push(
      `    ${row.exchanger} (#${row.exchangerId}): ${rate}, reserve ${row.reserve} ${direction.to.code}${row.min !== undefined && row.max !== undefined ? `, orders ${row.min}–${row.max} ${direction.from.code}` : ''}; ${mark}`,
    );
  }
  if (last < entries.length) lines.push(`    … ${entries.length - last} worse rows`);
  if (field.rival && field.target && field.needed) {
    lines.push(
      `  Target: the competitor at place ${detail.rule.worst} gives ${show(field.rival.rate)}; better by ${percent(detail.rule.step)}: ${show(field.target)}; rounded against the client, and strictly better than the competitor: ${form(field.needed)} = ${show(rateOf(field.needed))}`,
    );
  } else if (field.rival && field.target && field.unbeatable !== undefined) {
    lines.push(
      `  Target: the competitor at place ${detail.rule.worst} gives ${show(field.rival.rate)}; better by ${percent(detail.rule.step)}: ${show(field.target)}; no published rate beats it: ${field.unbeatable}`,
    );
  } else {
    lines.push(
      `  Target: ${field.counted.length} counted, fewer than place ${detail.rule.worst}: any rate holds it, so the ceiling`,
    );
  }
  return lines;
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
function rankedCapLine(cap: Cap, detail: CompeteDetail, direction: Direction): string {
  const unit = `${direction.to.code} per ${direction.from.code}`;
  const k = detail.rule.cap ? formatDecimal(detail.rule.cap) : '0';
  const { row } = cap.rest;
  return `  Cap${cap.city === undefined ? '' : ` in ${cap.city}`}: the best of the rest, ${row.exchanger}, gives rankrate ${row.give} (= ${show(cap.rest.rate)} ${unit} with its fees${row.bare === undefined ? '' : `, rate ${row.bare}`}); typical step ${show(cap.typicalStep)} ${unit} (median gap of the top ten, by rankrate); at most ${show(cap.rest.rate)} + ${k} × ${show(cap.typicalStep)} = ${show(cap.rate)} ${unit} with fees; our rate at that rankrate with our fees: ${show(cap.own)} ${unit} → step ${form(cap.form)}`;
}

export function competeLines(detail: CompeteDetail, direction: Direction): string[] {
  const { rule, outcome } = detail;
  const feedAge = outcome.feedAgeSeconds === undefined ? 'age unknown' : `${age(outcome.feedAgeSeconds)} old`;
  const counted = [
    rule.selfIds && rule.selfIds.size > 0 ? `our own listing (self) #${[...rule.selfIds].join(', #')}` : undefined,
    rule.ignore.length > 0 ? `ignoring ${rule.ignore.join(', ')}` : undefined,
    detail.minReserve ? `reserve at least ${show(detail.minReserve)} ${direction.to.code}` : undefined,
  ].filter(Boolean);
  const lines = [
    `Compete on BestChange (feed ${rule.source}, ${feedAge}): hold place ${rule.target}${rule.best === rule.worst ? '' : ` (its worst, ${rule.worst}, is held)`}, step ${percent(rule.step)}${counted.length > 0 ? `; counted: ${counted.join('; ')}` : ''}`,
    orderLine(detail, direction),
    `  Floor ${percent(rule.floor)}: at most market ${show(detail.market)} × (1 − ${formatDecimal(rule.floor)}) = ${show(detail.floorRate)} → step ${form(detail.floorForm)}`,
    `  Ceiling ${percent(rule.ceiling)}: at least ${show(detail.market)} × (1 − ${formatDecimal(rule.ceiling)}) = ${show(detail.ceilingRate)} → step ${form(detail.ceilingForm)}`,
  ];
  for (const field of detail.fields) lines.push(...fieldLines(field, detail, direction));
  for (const cap of detail.caps ?? []) {
    if (cap.ranked) {
      lines.push(rankedCapLine(cap, detail, direction));
      continue;
    }
    lines.push(
      `  Cap${cap.city === undefined ? '' : ` in ${cap.city}`}: the best of the rest, ${cap.rest.row.exchanger}, gives ${show(cap.rest.rate)}; typical step ${show(cap.typicalStep)} (median gap of the top ten); at most ${show(cap.rest.rate)} + ${rule.cap ? formatDecimal(rule.cap) : '0'} × ${show(cap.typicalStep)} = ${show(cap.rate)} → step ${form(cap.form)}`,
    );
  }
  if (detail.war && detail.hold) {
    lines.push(
      `  PRICE WAR with ${detail.war.rival} (#${detail.war.rivalId}) since ${detail.war.since}: ${detail.war.rounds} of our moves answered in a row; never more generous than ${form(detail.hold)} until ${detail.war.until}`,
    );
  }
  if (outcome.basis === 'fallback') {
    lines.push(
      `  NOT TRUSTED: ${outcome.reason ?? ''}; priced at the normal margin ${percent(direction.margin)}: ${show(detail.marginRate)}`,
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
      `  Rate ${form(detail.chosen)} = ${show(rateOf(detail.chosen))} ${direction.to.code} per ${direction.from.code} (published as is by exports without a markup), place ${outcome.place} of ${outcome.competitors + 1}`,
    );
  }
  return lines;
}
