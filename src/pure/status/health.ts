// Health: is ratefile publishing what it should? ok, degraded or failing, each with its reasons. Pure: the
// status and the clock in, the level out; computed after every build (kept in the status) and again when read.
import type { Health, HealthPolicy } from '../../model/config.js';
import type { HaStatus, Status } from './report.js';
import type { WithheldKind } from '../../model/priced.js';
import { directionNameOfId, plural } from '../../base/words.js';
import { notMadeText } from './rates.js';
import { slowBuildText } from '../ha/role.js';

export const defaultHealthPolicy: HealthPolicy = { failAfterPeriods: 3, maxWithheldShare: 0.25 };

/**
 * Held back on purpose: out of working hours, paused, or left out of one export its format cannot write (the
 * config's doing, in every build alike). Every other kind is a fault (maintenance withholds nothing: it publishes empty).
 */
const expected: ReadonlySet<WithheldKind> = new Set<WithheldKind>(['hours', 'paused', 'format']);

/** A status file written before kinds existed has none: count those as faults, the safe side. */
export const isFault = (kind: WithheldKind | undefined): boolean => kind === undefined || !expected.has(kind);

const distinct = (items: readonly string[]) => [...new Set(items)];
const listed = (items: readonly string[], limit = 5) =>
  items.length <= limit ? items.join(', ') : `${items.slice(0, limit).join(', ')} and ${items.length - limit} more`;

export function assessHealth(status: Status | undefined, now: Date): Health {
  if (!status) return { level: 'failing', reasons: ['no build yet'] };
  const policy = status.healthPolicy ?? defaultHealthPolicy;
  const failing: string[] = [];
  const degraded: string[] = [];
  const notes: string[] = [];

  const limitMs = policy.failAfterPeriods * status.schedulePeriodMs;
  // The cause first: with `ha:`, a build longer than the period can never be published.
  if (status.ha?.slowBuild) failing.push(slowBuildText(status.ha.slowBuild.buildMs, status.schedulePeriodMs));
  if (status.lastSuccessAt === undefined) failing.push('no build has succeeded yet');
  else {
    const age = now.getTime() - Date.parse(status.lastSuccessAt);
    if (age > limitMs)
      failing.push(`last successful build is ${Math.round(age / 1000)} s old (limit ${Math.round(limitMs / 1000)} s)`);
  }
  const silence = haSilence(status, now, limitMs);
  if (silence) failing.push(silence);
  else {
    const unpublished = status.ha && haUnpublished(status.ha);
    if (unpublished) (unpublished.level === 'failing' ? failing : degraded).push(unpublished.text);
  }
  if (!status.lastBuild.ok) degraded.push(`last build failed: ${status.lastBuild.error ?? 'unknown error'}`);
  if (status.configError !== undefined)
    degraded.push(`config reload rejected, the last good config still serves: ${status.configError}`);

  // Directions, each counted once: a status written before directions were counted kept one entry per export a
  // published direction was left out of, and such a direction is published, not withheld.
  const published = new Set(status.published);
  const faults = distinct(
    status.heldBack
      .filter((held) => isFault(held.kind) && !published.has(held.direction))
      .map((held) => held.direction),
  );
  const due = published.size + faults.length;
  if (faults.length > 0) {
    const text = `${faults.length} of ${plural(due, 'direction')} withheld for a fault: ${listed(faults.map(directionNameOfId))}`;
    if (faults.length / due > policy.maxWithheldShare)
      failing.push(`${text} (more than ${Math.round(policy.maxWithheldShare * 100)}%)`);
    else degraded.push(text);
  }
  // Left out of some exports only, for a fault (limits crossing at their markup): published all the same, so at
  // most degraded, never part of the withheld share.
  const leftOut = (status.leftOut ?? []).filter((o) => isFault(o.kind));
  if (leftOut.length > 0) {
    const count = plural(leftOut.length, 'direction');
    degraded.push(
      `${count} left out of some exports for a fault: ${listed(leftOut.map((o) => `${directionNameOfId(o.direction)} (${o.files.join(', ')})`))}`,
    );
  }
  const sources = [...status.sources, ...(status.reserveSources ?? [])]
    .filter((source) => !source.ok)
    .map((source) => source.name);
  const fallbacks = (status.competing ?? []).filter((c) => c.basis === 'fallback');
  if (fallbacks.length > 0) {
    const count = plural(fallbacks.length, 'competing direction');
    degraded.push(
      `${count} priced at the normal margin, the field not trusted: ${listed(
        fallbacks.map((c) => `${directionNameOfId(c.direction)} (${c.reason ?? 'no reason'})`),
        3,
      )}`,
    );
  }
  if (sources.length > 0) degraded.push(`failing source${sources.length === 1 ? '' : 's'}: ${sources.join(', ')}`);
  // A market the operator ruled that cannot be made: degraded, as its alert, whether a direction needs it now or not.
  for (const rate of status.rates ?? []) if (!rate.ok) degraded.push(notMadeText(rate));
  // What the monitors fetch is not what was published: degraded (the files here are right), the level its alert has.
  for (const problem of status.outsideProblems ?? []) degraded.push(problem.text);
  if (status.maintenance) notes.push('maintenance: every export is published empty');

  if (failing.length > 0) return { level: 'failing', reasons: [...failing, ...degraded, ...notes] };
  if (degraded.length > 0) return { level: 'degraded', reasons: [...degraded, ...notes] };
  return { level: 'ok', reasons: notes };
}

/**
 * With `ha:`, builds succeed on every instance while none may publish (the lock's database unreachable, a standby
 * that will not take over): failing once no instance is known to have published for the limit. What is known is
 * the lock's record (read at every build while the database answers) and this instance's own publishes; an
 * instance that cannot read the record cannot tell that another publishes, and says so.
 */
function haSilence(status: Status, now: Date, limitMs: number): string | undefined {
  const { ha } = status;
  if (!ha) return undefined;
  const last = ha.lastPublish;
  const from = last ? Date.parse(last.at) : ha.startedAt === undefined ? Number.NaN : Date.parse(ha.startedAt);
  const silentMs = now.getTime() - from;
  if (!(silentMs > limitMs)) return undefined;
  const limit = `limit ${Math.round(limitMs / 1000)} s`;
  const why = ha.role === 'standby' && ha.reason ? `; this instance does not publish: ${ha.reason}` : '';
  return last
    ? `no instance has published for ${Math.round(silentMs / 1000)} s (${limit}; the last publish known is ${last.by}'s at ${last.at})${why}`
    : `no instance has published since this one started ${Math.round(silentMs / 1000)} s ago (${limit})${why}`;
}

/**
 * The exit code of `ratefile status` and `ratefile build`, one rule: 0 only while health is ok (degraded and failing
 * both need the operator: a source or a reserve source down, a direction withheld for a fault…). A build also fails
 * when a source sent a quote it had to drop (`unusable`) or an upload failed: the files are written all the same.
 */
export function exitCodeOf(health: Health, build: { unusable?: boolean; failedUploads?: number } = {}): 0 | 1 {
  return health.level === 'ok' && !build.unusable && (build.failedUploads ?? 0) === 0 ? 0 : 1;
}

/**
 * With `ha:`, health is ok only once a publish is known: this instance's own while it leads (until its first publish
 * lands, its folder holds another instance's files or none: failing, so a load balancer waits), or, on a standby, the
 * leader's (degraded: a standby serves no export either way).
 */
function haUnpublished(ha: HaStatus): { level: 'failing' | 'degraded'; text: string } | undefined {
  if (ha.role === 'leader') {
    const own = ha.lastPublish?.by === ha.instance ? Date.parse(ha.lastPublish.at) : Number.NaN;
    // Its own publish since it took the lock: one named in the record from before (a restart) does not count.
    if (own >= (ha.leaderSince === undefined ? Number.NEGATIVE_INFINITY : Date.parse(ha.leaderSince))) return undefined;
    const from = ha.takeover ? ` (took over from ${ha.takeover.from} at ${ha.takeover.at})` : '';
    return { level: 'failing', text: `this instance leads${from} but has not published yet` };
  }
  return ha.lastPublish ? undefined : { level: 'degraded', text: 'no instance is known to have published yet' };
}

/** The body of the full /healthz and of `ratefile status --json`: one level with its reasons, then the status. */
export type HealthBody = Health & Omit<Partial<Status>, 'health'>;

/**
 * The level and reasons assessed now, then the status as the last build left it, without the level that build
 * assessed (it would say the same thing again, or an older thing): each fact once.
 */
export function healthBody(health: Health, status: Status | undefined): HealthBody {
  const { health: _atBuild, ...rest } = status ?? {};
  return { level: health.level, reasons: health.reasons, ...rest };
}
