// What is wrong now, as problems keyed so that a build can tell which started, which ended and which go on. Pure.
import { archiveProblems } from '../../pure/archive/lines.js';
import { assessHealth } from '../../pure/status/health.js';
import { isFault } from '../../pure/status/health.js';
import { redactSecrets } from '../../base/secrets.js';
import type { Status } from '../../pure/status/report.js';
import { directionNameOfId } from '../../base/words.js';

export interface Problem {
  /** Stable while the problem lasts: `source:binance`, `withheld:BTC>SBERRUB`, `health:failing`… */
  key: string;
  text: string;
  /** Its own level, for a problem health does not count (a silent monitor); otherwise health's level says it. */
  level?: 'degraded' | 'failing';
}

export function currentProblems(status: Status, now: Date): Problem[] {
  const problems: Problem[] = [];
  const health = assessHealth(status, now);
  if (health.level !== 'ok')
    problems.push({ key: `health:${health.level}`, text: `health ${health.level}: ${health.reasons.join('; ')}` });
  problems.push(
    ...sourceProblems(status),
    ...rateProblems(status),
    ...heldProblems(status),
    ...competeProblems(status),
  );
  problems.push(...listingProblems(status, now));
  if (!status.lastBuild.ok)
    problems.push({ key: 'build', text: `build failing: ${status.lastBuild.error ?? 'unknown error'}` });
  if (status.configError !== undefined)
    problems.push({ key: 'config', text: `config reload rejected: ${status.configError}` });
  if (status.maintenance)
    problems.push({ key: 'maintenance', text: 'maintenance on: every export is published empty' });
  problems.push(...haProblems(status, now), ...archiveProblems(status.archive));
  // What an alert says (and alerts.json keeps) quotes sources' answers: no credential in it, whatever status it came from.
  return problems.map((problem) => ({ ...problem, text: redactSecrets(problem.text) }));
}

/** Quote sources, then reserve sources, that failed this build. */
function sourceProblems(status: Status): Problem[] {
  const problems: Problem[] = [];
  for (const source of status.sources) {
    if (!source.ok)
      problems.push({
        key: `source:${source.name}`,
        text: `source ${source.name} failing: ${source.lastError ?? 'unknown error'}`,
      });
  }
  for (const source of status.reserveSources ?? []) {
    if (!source.ok)
      problems.push({
        key: `reserves:${source.name}`,
        text: `reserve source ${source.name} failing: ${source.lastError ?? 'unknown error'}`,
      });
  }
  return problems;
}

/**
 * Pairs of `rates:`: one that could not be made, and each term dropped as an outlier, named, so the source that went
 * wrong is known while the consensus still prices without it.
 */
function rateProblems(status: Status): Problem[] {
  const problems: Problem[] = [];
  for (const rate of status.rates ?? []) {
    if (rate.missing !== undefined)
      problems.push({
        key: `rate:${rate.pair}`,
        level: 'degraded',
        text: `rate ${rate.pair} (${rate.made}) missing: ${rate.missing}`,
      });
    for (const term of rate.terms)
      if (term.status === 'dropped' && rate.ok)
        problems.push({
          key: `rate:${rate.pair}:dropped:${term.label}`,
          level: 'degraded',
          text: `rate ${rate.pair} (${rate.made}): ${term.label} dropped, ${term.why ?? 'an outlier'}; made without it`,
        });
  }
  return problems;
}

/** Directions held back by a fault (a held jump says how to publish it now; a reference names both values). */
function heldProblems(status: Status): Problem[] {
  const problems: Problem[] = [];
  for (const held of status.heldBack) {
    if (!isFault(held.kind)) continue;
    if (held.kind === 'jump') {
      const [from, to] = held.direction.split('>');
      // A jump's facts name the command in its reason; a status from before they were kept does not.
      const command = held.jump ? '' : `; to publish it now: ratefile accept ${from} ${to}`;
      problems.push({
        key: `jump:${held.direction}`,
        text: `jump held ${directionNameOfId(held.direction)}: ${held.reason}${command}`,
      });
    } else if (held.kind === 'reference') {
      // One source gone wrong, caught by what else the config tells of the market: both values and sources are in the reason.
      problems.push({
        key: `reference:${held.direction}`,
        text: `${directionNameOfId(held.direction)} withheld, far from its independent reference: ${held.reason}`,
      });
    } else {
      problems.push({
        key: `withheld:${held.direction}`,
        text: `${directionNameOfId(held.direction)} withheld: ${held.reason}`,
      });
    }
  }
  return problems;
}

/** Competing directions at their normal margin, in a price war, or pinned at their floor. */
function competeProblems(status: Status): Problem[] {
  const problems: Problem[] = [];
  for (const c of status.competing ?? []) {
    // Both are worth a look: the field is not trusted, or it is cheaper than the floor lets us go.
    if (c.basis === 'fallback')
      problems.push({
        key: `compete:${c.direction}`,
        text: `${directionNameOfId(c.direction)} at its normal margin: ${c.reason ?? 'the field is not trusted'}`,
      });
    // A war starts an alert for its cool-down, whatever sets the rate meanwhile.
    if (c.war)
      problems.push({
        key: `war:${c.direction}`,
        text: `${directionNameOfId(c.direction)} in a price war with ${c.war.rival} (#${c.war.rivalId}): ${c.war.rounds} of our moves answered in a row; rate held until ${c.war.until}`,
      });
    if (c.basis === 'floor')
      problems.push({
        key: `floor:${c.direction}`,
        text: `${directionNameOfId(c.direction)} pinned at its floor, place ${c.place} (target ${c.target}): ${c.reason ?? 'the field is cheaper'}`,
      });
  }
  return problems;
}

/** BestChange lists a direction other than published (or not at all) for longer than the source allows. */
function listingProblems(status: Status, now: Date): Problem[] {
  const problems: Problem[] = [];
  for (const view of status.listing ?? []) {
    if (view.since === undefined || now.getTime() - Date.parse(view.since) < view.alertAfterSeconds * 1000) continue;
    const key = view.city ? `${view.direction}@${view.city}` : view.direction;
    const where = view.city ? ` in ${view.city}` : '';
    problems.push({
      key: `listing:${key}`,
      text: `BestChange lists ${directionNameOfId(view.direction)}${where} as ${view.state} since ${view.since}: ${view.differences.join('; ')}`,
    });
  }
  return problems;
}

/** How long a takeover stays an open problem: it starts an alert, which ends by itself. */
export const TAKEOVER_ALERT_MS = 15 * 60_000;

/** A failover (on the instance that took over) and a config that differs from the holder's (on either). */
function haProblems(status: Status, now: Date): Problem[] {
  const { ha } = status;
  if (!ha) return [];
  const problems: Problem[] = [];
  if (ha.role === 'leader' && ha.takeover && now.getTime() - Date.parse(ha.takeover.at) < TAKEOVER_ALERT_MS)
    problems.push({
      key: 'ha:takeover',
      text: `failover: ${ha.instance} took over publishing from ${ha.takeover.from} at ${ha.takeover.at}`,
    });
  if (ha.role === 'leader' && ha.overwritten && now.getTime() - Date.parse(ha.overwritten.at) < TAKEOVER_ALERT_MS)
    problems.push({
      key: 'ha:overwritten',
      text: `${ha.overwritten.files.join(', ')} replaced by another writer at ${ha.overwritten.at} while ${ha.instance} led (an old leader resumed?): published over at once`,
    });
  if (ha.holderConfigHash !== undefined && ha.holder !== ha.instance)
    problems.push({
      key: 'ha:config',
      text: `the config of ${ha.instance} (hash ${ha.configHash}) differs from that of ${ha.holder ?? 'the holder'} (hash ${ha.holderConfigHash}): it will not take over`,
    });
  return problems;
}

export type AlertKind = 'start' | 'end' | 'reminder';

export interface AlertEvent {
  kind: AlertKind;
  key: string;
  text: string;
  /** An end whose text says what ended it (not the problem's last text). */
  recovered?: true;
}

/** Known problems and when each was last reported; kept in the state folder so a restart does not re-alert. */
export interface AlertState {
  active: Record<string, { since: string; reportedAt: string; text: string }>;
}

/** Start, end and reminder events of this build, and the state after it. */
export function compareProblems(
  state: AlertState,
  problems: readonly Problem[],
  now: Date,
  reminderMs: number,
  recoveries: ReadonlyMap<string, string> = new Map(),
): { events: AlertEvent[]; state: AlertState } {
  const at = now.toISOString();
  const active: AlertState['active'] = {};
  const events: AlertEvent[] = [];
  for (const problem of problems) {
    const known = state.active[problem.key];
    if (!known) {
      events.push({ kind: 'start', ...problem });
      active[problem.key] = { since: at, reportedAt: at, text: problem.text };
    } else if (now.getTime() - Date.parse(known.reportedAt) >= reminderMs) {
      events.push({ kind: 'reminder', ...problem });
      active[problem.key] = { ...known, reportedAt: at, text: problem.text };
    } else {
      active[problem.key] = { ...known, text: problem.text };
    }
  }
  for (const [key, known] of Object.entries(state.active)) {
    // What ended it, when the problem's source knows (a monitor fetched again); else the problem as it last was.
    const recovered = recoveries.get(key);
    if (!(key in active))
      events.push({ kind: 'end', key, text: recovered ?? known.text, ...(recovered ? { recovered: true } : {}) });
  }
  return { events, state: { active } };
}

const labels: Record<AlertKind, string> = { start: 'PROBLEM', reminder: 'STILL', end: 'RESOLVED' };

/** The text of one message (Telegram, email): one line per event, withheld directions together. */
export function messageText(events: readonly AlertEvent[]): string {
  return events
    .map(
      (event) =>
        `${labels[event.kind]}: ${event.kind === 'end' && !event.recovered ? event.text.replace(/^/, 'was ') : event.text}`,
    )
    .join('\n');
}
