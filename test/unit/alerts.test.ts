// What alerts say and when: problems from a status, start/end/reminder against the known ones. Pure.
import { describe, expect, it } from 'vitest';
import { compareProblems, currentProblems, messageText, type AlertState } from '../../src/alerts/problems.js';
import type { Status } from '../../src/status.js';

const at = '2026-11-21T12:00:00.000Z';
const now = new Date(at);
const status = (overrides: Partial<Status> = {}): Status => ({
  version: 1,
  lastBuild: { at, durationMs: 1, ok: true },
  lastSuccessAt: at,
  schedulePeriodMs: 30_000,
  maintenance: false,
  sources: [],
  exports: [],
  published: ['A>B', 'C>D', 'E>F', 'G>H', 'I>J'],
  heldBack: [],
  ...overrides,
});

describe('currentProblems', () => {
  it('a held jump carries the exact accept command; out of hours is no problem', () => {
    const problems = currentProblems(status({ heldBack: [
      { direction: 'BTC>SBERRUB', kind: 'jump', reason: 'rate moved 12% from the last published 9000000' },
      { direction: 'USDTTRC20>CASHRUB', kind: 'hours', reason: 'outside working hours' },
    ] }), now);
    expect(problems).toEqual([
      { key: 'health:degraded', text: 'health degraded: 1 of 6 directions withheld for a fault: BTC→SBERRUB' },
      { key: 'jump:BTC>SBERRUB', text: 'jump held BTC→SBERRUB: rate moved 12% from the last published 9000000; to publish it now: ratefile accept BTC SBERRUB' },
    ]);
  });

  it('a failed build, a rejected config and maintenance are problems of their own', () => {
    const keys = currentProblems(status({ lastBuild: { at, durationMs: 1, ok: false, error: 'x' }, configError: 'y', maintenance: true }), now).map((p) => p.key);
    expect(keys).toEqual(['health:degraded', 'build', 'config', 'maintenance']);
  });
});

describe('compareProblems', () => {
  const problem = { key: 'source:x', text: 'source x failing' };
  it('start once, nothing while it lasts, a reminder after the interval, end once', () => {
    const empty: AlertState = { active: {} };
    const first = compareProblems(empty, [problem], now, 3_600_000);
    expect(first.events).toEqual([{ kind: 'start', ...problem }]);
    const later = (ms: number) => new Date(now.getTime() + ms);
    const second = compareProblems(first.state, [problem], later(3_599_999), 3_600_000);
    expect(second.events).toEqual([]);
    const third = compareProblems(second.state, [problem], later(3_600_000), 3_600_000);
    expect(third.events).toEqual([{ kind: 'reminder', ...problem }]);
    expect(compareProblems(third.state, [problem], later(3_700_000), 3_600_000).events).toEqual([]);
    const fourth = compareProblems(third.state, [], later(3_700_000), 3_600_000);
    expect(fourth.events).toEqual([{ kind: 'end', ...problem }]);
    expect(fourth.state).toEqual({ active: {} });
    expect(messageText([...first.events, ...third.events, ...fourth.events])).toBe('PROBLEM: source x failing\nSTILL: source x failing\nRESOLVED: was source x failing');
  });
});
