// assessHealth: ok, degraded or failing from a status and the clock; the thresholds of `health:`.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/io/config/load.js';
import { assessHealth, exitCodeOf, healthBody } from '../../../../src/pure/status/health.js';
import { projectsPerTest, sampleConfig } from '../../../support/project.js';
import { goodStatus } from '../../../support/status.js';
import type { Status } from '../../../../src/pure/status/report.js';
import type { WithheldKind } from '../../../../src/model/priced.js';

const at = '2026-11-21T12:00:00.000Z';
const now = new Date('2026-11-21T12:00:10Z');
const ids = [
  'BTC>SBERRUB',
  'BTC>USDTTRC20',
  'SBERRUB>USDTTRC20',
  'USDTTRC20>CASHRUB',
  'ETH>SBERRUB',
  'LTC>SBERRUB',
  'TRX>SBERRUB',
  'TON>SBERRUB',
];

const status = (overrides: Partial<Status> = {}): Status => goodStatus(at, ids, overrides);

/** The first `count` directions held back with `kind`, the rest published. */
const holding = (count: number, kind: WithheldKind): Partial<Status> => ({
  published: ids.slice(count),
  heldBack: ids.slice(0, count).map((direction) => ({ direction, kind, reason: 'x' })),
});

describe('assessHealth', () => {
  it.each([
    ['no status', undefined, 'failing', ['no build yet']],
    ['everything published', status(), 'ok', []],
    [
      'maintenance: ok, and says so',
      status({ maintenance: true, published: [] }),
      'ok',
      ['maintenance: every export is published empty'],
    ],
    ['out of hours is expected, even all of them', status(holding(8, 'hours')), 'ok', []],
    [
      'one of eight withheld for a stale quote',
      status(holding(1, 'stale')),
      'degraded',
      ['1 of 8 directions withheld for a fault: BTC → SBERRUB'],
    ],
    [
      'two of eight (25%) is not more than 25%',
      status(holding(2, 'jump')),
      'degraded',
      ['2 of 8 directions withheld for a fault: BTC → SBERRUB, BTC → USDTTRC20'],
    ],
    [
      'the issue: 7 of 8 withheld while the source fails',
      status({ ...holding(7, 'stale'), sources: [{ name: 'backoffice', type: 'file', ok: false, quotes: 0 }] }),
      'failing',
      [
        '7 of 8 directions withheld for a fault: BTC → SBERRUB, BTC → USDTTRC20, SBERRUB → USDTTRC20, USDTTRC20 → CASHRUB, ETH → SBERRUB and 2 more (more than 25%)',
        'failing source: backoffice',
      ],
    ],
    [
      'a failing source nothing needs',
      status({ sources: [{ name: 'spare', type: 'file', ok: false, quotes: 0 }] }),
      'degraded',
      ['failing source: spare'],
    ],
    [
      'a public copy wrong for alertAfter (the watch from outside): degraded, as its alert',
      status({
        outsideProblems: [{ key: 'outside:parserfile.xml', text: 'the public copy of parserfile.xml is older' }],
      }),
      'degraded',
      ['the public copy of parserfile.xml is older'],
    ],
    [
      'a rejected config reload',
      status({ configError: 'bad' }),
      'degraded',
      ['config reload rejected, the last good config still serves: bad'],
    ],
    [
      'a failed build after a recent good one',
      status({ lastBuild: { at, durationMs: 1, ok: false, error: 'disk full' } }),
      'degraded',
      ['last build failed: disk full'],
    ],
    [
      'no good build ever',
      status({
        lastSuccessAt: undefined as unknown as string,
        lastBuild: { at, durationMs: 1, ok: false, error: 'e' },
      }),
      'failing',
      ['no build has succeeded yet', 'last build failed: e'],
    ],
  ] as const)('%s', (_name, input, level, reasons) => {
    const clean =
      input && 'lastSuccessAt' in input && input.lastSuccessAt === undefined
        ? (({ lastSuccessAt: _, ...rest }) => rest)(input)
        : input;
    expect(assessHealth(clean as Status | undefined, now)).toEqual({ level, reasons });
  });

  it('the age of the last good build: failing after three schedule periods, or the configured number', () => {
    const good = status();
    expect(assessHealth(good, new Date(Date.parse(at) + 90_000)).level).toBe('ok');
    expect(assessHealth(good, new Date(Date.parse(at) + 91_000))).toEqual({
      level: 'failing',
      reasons: ['last successful build is 91 s old (limit 90 s)'],
    });
    const patient = status({ healthPolicy: { failAfterPeriods: 10, maxWithheldShare: 0.25 } });
    expect(assessHealth(patient, new Date(Date.parse(at) + 91_000)).level).toBe('ok');
  });

  it('the share of faults is configurable', () => {
    expect(
      assessHealth(
        status({ ...holding(4, 'quote'), healthPolicy: { failAfterPeriods: 3, maxWithheldShare: 0.5 } }),
        now,
      ).level,
    ).toBe('degraded');
    expect(
      assessHealth(
        status({ ...holding(5, 'quote'), healthPolicy: { failAfterPeriods: 3, maxWithheldShare: 0.5 } }),
        now,
      ).level,
    ).toBe('failing');
    expect(assessHealth(status(holding(3, 'quote')), now).level).toBe('failing');
  });

  it('counts directions: left out of some exports is published (degraded at most), each name once', () => {
    const leftOut = (direction: string, kind: WithheldKind) => ({
      direction,
      kind,
      files: ['reffile.xml', 'affiliatefile.xml'],
      reason: 'left out of reffile.xml, affiliatefile.xml: x',
    });
    // Three of eight left out of two exports each: still 8 published, never a share of withheld directions.
    const three = status({
      leftOut: [leftOut('BTC>SBERRUB', 'limits'), leftOut('BTC>USDTTRC20', 'limits'), leftOut('ETH>SBERRUB', 'limits')],
    });
    expect(assessHealth(three, now)).toEqual({
      level: 'degraded',
      reasons: [
        '3 directions left out of some exports for a fault: BTC → SBERRUB (reffile.xml, affiliatefile.xml), BTC → USDTTRC20 (reffile.xml, affiliatefile.xml), ETH → SBERRUB (reffile.xml, affiliatefile.xml)',
      ],
    });
    // Left out of an export its format cannot write: the config's doing, like `format` everywhere.
    expect(assessHealth(status({ leftOut: [leftOut('BTC>SBERRUB', 'format')] }), now)).toEqual({
      level: 'ok',
      reasons: [],
    });
    // A status file of an older build: one heldBack entry per export, for a direction it also lists as published.
    const old = status({
      heldBack: ['reffile.xml', 'affiliatefile.xml', 'partnerfile.xml'].map((file) => ({
        direction: 'BTC>SBERRUB',
        kind: 'limits' as const,
        reason: `${file}: x`,
      })),
    });
    expect(assessHealth(old, now)).toEqual({ level: 'ok', reasons: [] });
    const twice = status({
      published: ids.slice(1),
      heldBack: [0, 1].map(() => ({ direction: 'BTC>SBERRUB', kind: 'limits' as const, reason: 'x' })),
    });
    expect(assessHealth(twice, now)).toEqual({
      level: 'degraded',
      reasons: ['1 of 8 directions withheld for a fault: BTC → SBERRUB'],
    });
  });

  it('the body gives the level and its reasons once: the status follows without the level its build assessed', () => {
    const status = { version: 1, health: { level: 'ok', reasons: [] } } as unknown as Status;
    expect(healthBody({ level: 'degraded', reasons: ['a', 'b'] }, status)).toEqual({
      level: 'degraded',
      reasons: ['a', 'b'],
      version: 1,
    });
    expect(healthBody({ level: 'failing', reasons: ['no build yet'] }, undefined)).toEqual({
      level: 'failing',
      reasons: ['no build yet'],
    });
  });
});

describe('health: in the config', () => {
  const project = projectsPerTest();
  it('defaults to 3 periods and 25%; both can be set', async () => {
    const made = await project();
    expect((await loadConfig(made.configPath)).health).toEqual({ failAfterPeriods: 3, maxWithheldShare: 0.25 });
    const set = await project({
      'ratefile.config.yaml': `${sampleConfig}health: { failAfterPeriods: 5, maxWithheld: "50%" }\n`,
    });
    expect((await loadConfig(set.configPath)).health).toEqual({ failAfterPeriods: 5, maxWithheldShare: 0.5 });
  });
});

describe('exitCodeOf: the exit code of `status` and `build`, one rule', () => {
  it('0 only for ok; degraded and failing are 1; a build also fails on a dropped quote or a failed upload', () => {
    expect(exitCodeOf(assessHealth(status(), now))).toBe(0);
    expect(exitCodeOf(assessHealth(status(holding(1, 'reserve')), now))).toBe(1);
    expect(exitCodeOf(assessHealth(status(holding(8, 'jump')), now))).toBe(1);
    // Out of hours or paused is the config's doing: no fault.
    expect(exitCodeOf(assessHealth(status(holding(8, 'hours')), now))).toBe(0);
    const failingReserves = { reserveSources: [{ name: 'office', type: 'reserves/file', ok: false, quotes: 0 }] };
    expect(exitCodeOf(assessHealth(status(failingReserves), now))).toBe(1);
    expect(exitCodeOf(assessHealth(status(), now), { unusable: true })).toBe(1);
    expect(exitCodeOf(assessHealth(status(), now), { failedUploads: 1 })).toBe(1);
  });
});
