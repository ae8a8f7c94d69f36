// The reasons of a build summarised per cause (src/pure/status/reasons.ts), as `ratefile build` prints them and `start`
// logs them when they start and end (src/service/start/reasons.ts): one stale source at 10,000 directions, and its
// recovery, are a handful of lines each, never 10,000.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../src/base/log.js';
import type { BuildResult } from '../../../../src/io/build/build.js';
import { problemLines } from '../../../../src/pure/status/cycle-lines.js';
import { buildReasons, summariseReasons } from '../../../../src/pure/status/reasons.js';
import type { BuildReport } from '../../../../src/pure/status/report.js';
import { reasonLog } from '../../../../src/service/start/reasons.js';

const codes = (i: number) => ({ from: { code: `C${i}` }, to: { code: 'SBERRUB' } });
const direction = (i: number) => ({ id: `C${i}>SBERRUB`, index: i, ...codes(i) });

/** A build whose one source went stale: `count` directions held back for it, two more withheld for a jump. */
function report(count: number, stale = true): BuildReport {
  const withheld = stale
    ? Array.from({ length: count }, (_, i) => ({
        direction: direction(i),
        kind: 'stale',
        reason: `quote C${i}/USDT from desk is 130 s old (limit 60 s)`,
      }))
    : [];
  const jumps = [0, 1].map((i) => ({
    direction: direction(20_000 + i),
    kind: 'jump',
    reason: 'rate moved 9% from the last published',
  }));
  return {
    sources: [{ name: 'desk', ok: !stale, rejected: [], error: stale ? 'quotes are 130 s old' : undefined }],
    reserves: [],
    rates: [],
    directions: { published: [], withheld: [...withheld, ...jumps], leftOut: [] },
  } as unknown as BuildReport;
}

describe('the reasons of a build, per cause', () => {
  it('10,000 directions held back for one stale source: a count, the first three, and where to see every one', () => {
    const lines = problemLines({ report: report(10_000) });
    expect(lines).toEqual([
      'source desk failed: quotes are 130 s old',
      '10000 directions held back (stale), the first 3 below; every one in `ratefile status` (`--json`) and on the dashboard',
      'held back C0 → SBERRUB (directions[0]): quote C0/USDT from desk is 130 s old (limit 60 s)',
      'held back C1 → SBERRUB (directions[1]): quote C1/USDT from desk is 130 s old (limit 60 s)',
      'held back C2 → SBERRUB (directions[2]): quote C2/USDT from desk is 130 s old (limit 60 s)',
      // Another cause, of few directions: each one.
      'held back C20000 → SBERRUB (directions[20000]): rate moved 9% from the last published',
      'held back C20001 → SBERRUB (directions[20001]): rate moved 9% from the last published',
    ]);
  });

  it('up to five of one cause are a line each', () => {
    const reasons = buildReasons(report(5));
    expect(summariseReasons(reasons).map((line) => line.line)).toHaveLength(reasons.length);
    expect(summariseReasons(buildReasons(report(6)))).toHaveLength(1 + 1 + 3 + 2);
  });

  it('start logs the fault and its end as a handful of lines each, the summary with its cause and count', () => {
    let text = '';
    const log = createLogger({ write: (line: string) => (text += line) }, { format: () => 'json' });
    const logReasons = reasonLog(log);
    const build = (built: BuildReport) => logReasons({ report: built } as unknown as BuildResult);
    const lines = () => {
      const all = text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      text = '';
      return all;
    };
    build(report(0, false));
    expect(lines().map((line) => line.msg)).toEqual([
      'held back C20000 → SBERRUB (directions[20000]): rate moved 9% from the last published',
      'held back C20001 → SBERRUB (directions[20001]): rate moved 9% from the last published',
    ]);
    build(report(10_000));
    const started = lines();
    expect(started).toHaveLength(1 + 1 + 3);
    expect(started[1]).toMatchObject({
      level: 'warn',
      event: 'reason',
      state: 'start',
      cause: 'withheld:stale',
      count: 10_000,
      msg: expect.stringMatching(/^10000 directions held back \(stale\), the first 3 below; /),
    });
    // The same fault at the next build: nothing new.
    build(report(10_000));
    expect(lines()).toEqual([]);
    build(report(0, false));
    const ended = lines();
    expect(ended.map((line) => line.msg)).toEqual([
      'over: source desk failed: quotes are 130 s old',
      expect.stringMatching(/^over: 10000 directions held back \(stale\), the first 3 below; /),
      'over: held back C0 → SBERRUB (directions[0]): quote C0/USDT from desk is 130 s old (limit 60 s)',
      'over: held back C1 → SBERRUB (directions[1]): quote C1/USDT from desk is 130 s old (limit 60 s)',
      'over: held back C2 → SBERRUB (directions[2]): quote C2/USDT from desk is 130 s old (limit 60 s)',
    ]);
    expect(ended[1]).toMatchObject({ level: 'info', state: 'end', cause: 'withheld:stale', count: 10_000 });
  });
});
